package dev.eventide.trends.internal.engine;

import dev.eventide.trends.Event;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.engine.ChangeableTrendEngine;
import dev.eventide.trends.query.Query;
import dev.eventide.trends.query.WorkloadChange;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A {@link dev.eventide.trends.TrendEngine} over a {@link TrendPlan}: one {@link TrendState} per
 * (unit, partition), dropped once its windows are closed, so memory is bounded by the open windows.
 * Results of the partitions of one group are combined and emitted in the order of {@link
 * WindowedEngine}: by window end, window start, query, group.
 *
 * <p>The workload may change while events flow ({@link #change}): each change starts a version, a
 * plan compiled for the workload then in force (so sharing is planned anew), which evaluates the
 * windows that start from the change on; the versions before it finish the windows they opened, and
 * end with them. A removed query's sums go from every version at once. Queries are ordered by when
 * they joined: the initial workload's order, then additions in turn.
 *
 * <p>Counters: {@code events}, {@code windowsClosed}, {@code bursts}, {@code burstEvents}, {@code
 * sharedBursts}, {@code splitBursts}, {@code snapshots} (a shared map applied to one query in one
 * window), {@code workloadChanges}.
 */
public final class IncrementalEngine implements ChangeableTrendEngine {
  private final Consumer<TrendResult> sink;
  private final Counters counters = new Counters();

  /** The versions of the workload with windows still to open or close, oldest first. */
  private final List<Version> versions = new ArrayList<>();

  /** Each running query's place in the results' order. */
  private final Map<String, Integer> rank = new HashMap<>();

  private int nextRank;
  private long lastTime = Long.MIN_VALUE;

  /** A plan and its states, evaluating the windows that start in [from, until). */
  private static final class Version {
    final TrendPlan plan;
    final long from;
    long until = Long.MAX_VALUE;
    final List<Map<List<Object>, TrendState>> states = new ArrayList<>();

    /** Per unit, the earliest end of an open window (Long.MAX_VALUE if none). */
    final long[] nextEnd;

    /** The longest WITHIN of the plan: no window starting before until holds a later time. */
    final long within;

    Version(TrendPlan plan, long from) {
      this.plan = plan;
      this.from = from;
      this.nextEnd = new long[plan.unitCount()];
      Arrays.fill(nextEnd, Long.MAX_VALUE);
      long longest = 0;
      for (int u = 0; u < plan.unitCount(); u++) {
        states.add(new HashMap<>());
        longest = Math.max(longest, plan.within(u));
      }
      this.within = longest;
    }

    /** Queries of the plan removed from the workload: a state created later leaves them out. */
    final List<String> removed = new ArrayList<>();

    /** Whether no window of this version is open and no event can open one any more. */
    boolean isOver(long time) {
      long horizon = until > Long.MAX_VALUE - within ? Long.MAX_VALUE : until + within;
      return until != Long.MAX_VALUE && time >= horizon && states.stream().allMatch(Map::isEmpty);
    }
  }

  public IncrementalEngine(TrendPlan plan, Consumer<TrendResult> sink) {
    this.sink = sink;
    versions.add(new Version(plan, Long.MIN_VALUE));
    plan.workload().queries().forEach(q -> rank.put(q.name(), nextRank++));
  }

  @Override
  public void process(Event e) {
    lastTime = WindowedEngine.inTimeOrder(lastTime, e);
    close(e.time());
    List<Event> one = List.of(e);
    boolean read = false;
    for (Version v : versions) {
      for (TrendPlan.Route r : v.plan.route(e)) {
        if (!v.plan.hasWindow(r.unit(), e.time(), v.from, v.until)) {
          continue;
        }
        TrendState state =
            v.states.get(r.unit()).computeIfAbsent(r.partition(), p -> newState(v, r.unit(), p));
        v.plan.advance(state, one, counters);
        v.nextEnd[r.unit()] = Math.min(v.nextEnd[r.unit()], v.plan.nextWindowEnd(state));
        read = true;
      }
    }
    if (read) {
      counters.add("events", 1);
    }
    versions.removeIf(v -> v.isOver(e.time()));
  }

  /**
   * Changes the workload from the change's time on: windows ending by then are emitted first, an
   * added query evaluates the windows that start at or after it, and a removed query's open windows
   * give no results.
   *
   * @throws IllegalArgumentException if the change is not later than the last event processed, or
   *     does not apply to the workload in force ({@link WorkloadChange#applyTo}), or an added query
   *     cannot be compiled; the engine is then unchanged
   */
  @Override
  public void change(WorkloadChange change) {
    if (change.time() <= lastTime) {
      throw new IllegalArgumentException(
          "the change ("
              + change.describe()
              + ") must be later than the last event processed, at "
              + lastTime
              + ": it holds for the windows that start at or after its time");
    }
    Version current = versions.get(versions.size() - 1);
    TrendPlan next =
        TrendPlan.compile(change.applyTo(current.plan.workload()), current.plan.sharing());
    close(change.time());
    for (String removed : change.remove()) {
      for (Version v : versions) {
        v.removed.add(removed);
        for (Map<List<Object>, TrendState> states : v.states) {
          states.values().removeIf(state -> v.plan.retire(state, removed) && state.isEmpty());
        }
      }
      rank.remove(removed);
    }
    current.until = change.time();
    for (Map<List<Object>, TrendState> states : current.states) {
      states.values().forEach(s -> current.plan.limitWindows(s, current.from, current.until));
    }
    for (Query q : next.workload().queries()) {
      rank.computeIfAbsent(q.name(), n -> nextRank++);
    }
    versions.add(new Version(next, change.time()));
    versions.removeIf(v -> v.isOver(change.time()));
    counters.add("workloadChanges", 1);
  }

  @Override
  public void finish() {
    close(Long.MAX_VALUE);
  }

  @Override
  public Map<String, Long> statistics() {
    return counters.snapshot();
  }

  /** The versions of the workload still evaluating windows. */
  int versions() {
    return versions.size();
  }

  private static TrendState newState(Version v, int unit, List<Object> partition) {
    TrendState state = v.plan.newState(unit, partition);
    v.plan.limitWindows(state, v.from, v.until);
    v.removed.forEach(q -> v.plan.retire(state, q));
    return state;
  }

  private void close(long time) {
    Map<List<Object>, WindowResult> combined = new LinkedHashMap<>();
    for (Version v : versions) {
      for (int u = 0; u < v.nextEnd.length; u++) {
        if (v.nextEnd[u] > time) {
          continue;
        }
        long next = Long.MAX_VALUE;
        for (Iterator<TrendState> it = v.states.get(u).values().iterator(); it.hasNext(); ) {
          TrendState state = it.next();
          for (WindowResult r : v.plan.closeWindows(state, time, counters)) {
            combined.merge(
                List.of(r.query(), r.windowStart(), r.windowEnd(), r.group()),
                r,
                WindowResult::combine);
          }
          if (state.isEmpty()) {
            it.remove();
          } else {
            next = Math.min(next, v.plan.nextWindowEnd(state));
          }
        }
        v.nextEnd[u] = next;
      }
    }
    if (combined.isEmpty()) {
      return;
    }
    List<WindowResult> results = new ArrayList<>(combined.values());
    results.sort(
        Comparator.comparingLong(WindowResult::windowEnd)
            .thenComparingLong(WindowResult::windowStart)
            .thenComparingInt(r -> rank.get(r.query()))
            .thenComparing(r -> r.namedGroup().toString()));
    for (WindowResult r : results) {
      sink.accept(r.toTrendResult());
    }
  }
}
