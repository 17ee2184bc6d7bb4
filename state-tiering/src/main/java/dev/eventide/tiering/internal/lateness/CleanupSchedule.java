package dev.eventide.tiering.internal.lateness;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One key's cleanup bounds and late execution plans, by window: what {@link LatenessModel} and
 * {@link StalenessPlanner} decided, and when. Immutable; each change returns a new schedule.
 *
 * <p>A window keeps the terms in force when it was created, even when the model later moves the
 * bound: a new {@link Terms} applies to the windows that start after every value seen so far (none
 * of them can hold a value yet), so every value of a window is judged by the same bound and the
 * window is purged once, at that bound. Windows that start earlier keep the terms before it, or the
 * {@linkplain #initial initial} ones (the conservative maximum).
 *
 * <p>Besides the terms, the schedule counts observations for the model's sample: the sample is the
 * previous generation of observations and the current one, which becomes the previous when it holds
 * half the sample.
 */
public final class CleanupSchedule {
  /**
   * What a window gets: its cleanup bound and, with a staleness bound, the times of its late
   * executions (milliseconds after its end; the last is the cleanup bound). {@code executions} is
   * empty without a staleness bound: late panes then fire at the next watermark advance.
   */
  public record Terms(long cleanupMillis, long[] executions) {
    /**
     * When a pane with values that came {@code latenessMillis} after the window's end fires: the
     * first execution at or after that, in milliseconds after the window's end; 0 (at the next
     * watermark advance) without executions.
     */
    public long nextExecution(long latenessMillis) {
      if (executions.length == 0) {
        return 0;
      }
      int i = Arrays.binarySearch(executions, latenessMillis);
      i = i >= 0 ? i : -i - 1;
      return i < executions.length ? executions[i] : cleanupMillis;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Terms t
          && t.cleanupMillis == cleanupMillis
          && Arrays.equals(t.executions, executions);
    }

    @Override
    public int hashCode() {
      return Long.hashCode(cleanupMillis) * 31 + Arrays.hashCode(executions);
    }

    @Override
    public String toString() {
      return "Terms{cleanup="
          + cleanupMillis
          + " ms, executions="
          + Arrays.toString(executions)
          + "}";
    }
  }

  /** Terms that apply to windows starting at or after {@code fromStart}. */
  public record Change(long fromStart, Terms terms) {}

  private final long maxSeen;
  private final long maxSpan;
  private final int current;
  private final int sinceUpdate;
  private final List<Change> changes;

  public CleanupSchedule(
      long maxSeen, long maxSpan, int current, int sinceUpdate, List<Change> changes) {
    this.maxSeen = maxSeen;
    this.maxSpan = maxSpan;
    this.current = current;
    this.sinceUpdate = sinceUpdate;
    this.changes = List.copyOf(changes);
  }

  /** A key's schedule before its first value. */
  public static final CleanupSchedule EMPTY =
      new CleanupSchedule(Long.MIN_VALUE, 0, 0, 0, List.of());

  /** The latest value timestamp seen, in milliseconds. */
  public long maxSeen() {
    return maxSeen;
  }

  /** The longest window seen, in milliseconds. */
  public long maxSpan() {
    return maxSpan;
  }

  /** Observations in the current generation of the sample. */
  public int current() {
    return current;
  }

  /** Observations since the terms were last computed. */
  public int sinceUpdate() {
    return sinceUpdate;
  }

  public List<Change> changes() {
    return changes;
  }

  /** The terms of the window that starts at {@code windowStart}. */
  public Terms termsOf(long windowStart, Terms initial) {
    for (int i = changes.size() - 1; i >= 0; i--) {
      if (changes.get(i).fromStart() <= windowStart) {
        return changes.get(i).terms();
      }
    }
    return initial;
  }

  /** After a value with this timestamp, in a window this long. */
  public CleanupSchedule seen(long timestamp, long span) {
    if (timestamp <= maxSeen && span <= maxSpan) {
      return this;
    }
    return new CleanupSchedule(
        Math.max(maxSeen, timestamp), Math.max(maxSpan, span), current, sinceUpdate, changes);
  }

  /** After {@code n} more observations. */
  public CleanupSchedule observed(int n) {
    return new CleanupSchedule(maxSeen, maxSpan, current + n, sinceUpdate + n, changes);
  }

  /** After the current generation became the previous one. */
  public CleanupSchedule rolledOver() {
    return new CleanupSchedule(maxSeen, maxSpan, 0, sinceUpdate, changes);
  }

  /**
   * After the model computed {@code terms}: they apply to windows that start after every value
   * seen, unless they are the terms in force already.
   */
  public CleanupSchedule updated(Terms terms, Terms initial) {
    Terms latest = changes.isEmpty() ? initial : changes.get(changes.size() - 1).terms();
    if (latest.equals(terms)) {
      return new CleanupSchedule(maxSeen, maxSpan, current, 0, changes);
    }
    List<Change> next = new ArrayList<>(changes);
    long from = maxSeen == Long.MAX_VALUE ? maxSeen : maxSeen + 1;
    if (!next.isEmpty() && next.get(next.size() - 1).fromStart() == from) {
      next.remove(next.size() - 1);
    }
    next.add(new Change(from, terms));
    return new CleanupSchedule(maxSeen, maxSpan, current, 0, next);
  }

  /**
   * Without the changes that only windows past the allowed lateness could use: a change is needed
   * while a window that starts before the next change may still take values.
   */
  public CleanupSchedule pruned(long watermark, long allowedLatenessMillis) {
    int drop = 0;
    while (drop < changes.size() - 1) {
      long nextFrom = changes.get(drop + 1).fromStart();
      long lastEnd = saturatedAdd(nextFrom, maxSpan);
      if (watermark <= saturatedAdd(lastEnd, allowedLatenessMillis)) {
        break;
      }
      drop++;
    }
    return drop == 0
        ? this
        : new CleanupSchedule(
            maxSeen, maxSpan, current, sinceUpdate, changes.subList(drop, changes.size()));
  }

  static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : sum;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CleanupSchedule s
        && s.maxSeen == maxSeen
        && s.maxSpan == maxSpan
        && s.current == current
        && s.sinceUpdate == sinceUpdate
        && s.changes.equals(changes);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(maxSeen) * 31 + changes.hashCode();
  }

  @Override
  public String toString() {
    return "CleanupSchedule{maxSeen="
        + maxSeen
        + ", maxSpan="
        + maxSpan
        + ", current="
        + current
        + ", sinceUpdate="
        + sinceUpdate
        + ", changes="
        + changes
        + "}";
  }
}
