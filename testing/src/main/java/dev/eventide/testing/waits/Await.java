package dev.eventide.testing.waits;

import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Bounded waits for tests: poll a probe until what it reads reaches a state, and fail, within a
 * limit, with a message that names what was awaited and the last value seen. Tests wait for what
 * they need (a watermark observed, a checkpoint completed, a store emptied), never for wall-clock
 * time, and never without a limit.
 *
 * <pre>{@code
 * int completed = Await.until(
 *     "two more checkpoints of job " + job,
 *     java.time.Duration.ofMinutes(3),
 *     () -> checkpointCount(job),
 *     n -> n >= before + 2);
 * }</pre>
 *
 * <p>A limit that runs out throws {@link AssertionError}: "two more checkpoints of job 42 not
 * reached within 180 s; last seen: 5".
 */
public final class Await {
  private static final long FIRST_PAUSE_MILLIS = 5;
  private static final long LONGEST_PAUSE_MILLIS = 200;

  private Await() {}

  /** Reads the state a test waits on; it may fail, which ends the wait with that failure. */
  @FunctionalInterface
  public interface Probe<T> {
    T read() throws Exception;
  }

  /**
   * Polls {@code probe} until {@code reached} accepts what it read, and returns that value.
   *
   * @param what what is awaited, for the message ("the watermark of Sum reached 15 s")
   * @param limit how long to wait at most; generous: several times the expected wait on a loaded
   *     machine
   * @throws AssertionError if the limit runs out first: the message names {@code what}, the limit
   *     and the last value read
   * @throws Exception whatever the probe throws
   */
  public static <T> T until(
      String what, Duration limit, Probe<T> probe, Predicate<? super T> reached) throws Exception {
    return until(what, limit, probe, reached, () -> "");
  }

  /**
   * As {@link #until(String, Duration, Probe, Predicate)}, and appends {@code context} (for example
   * the tails of a cluster's logs) to the message when the limit runs out.
   */
  public static <T> T until(
      String what,
      Duration limit,
      Probe<T> probe,
      Predicate<? super T> reached,
      Supplier<String> context)
      throws Exception {
    Objects.requireNonNull(what, "what");
    if (limit.isNegative() || limit.isZero()) {
      throw new IllegalArgumentException("limit must be > 0, but was " + limit);
    }
    long start = System.nanoTime();
    long deadline = start + limit.toNanos();
    long pause = FIRST_PAUSE_MILLIS;
    while (true) {
      T seen = probe.read();
      if (reached.test(seen)) {
        return seen;
      }
      long now = System.nanoTime();
      if (now - deadline >= 0) {
        String extra = context.get();
        throw new AssertionError(
            String.format(
                    Locale.ROOT,
                    "%s not reached within %s; last seen: %s",
                    what,
                    describe(limit),
                    seen)
                + (extra == null || extra.isEmpty() ? "" : "\n" + extra));
      }
      Thread.sleep(Math.max(1, Math.min(pause, (deadline - now) / 1_000_000)));
      pause = Math.min(LONGEST_PAUSE_MILLIS, pause * 2);
    }
  }

  /**
   * Waits until {@code thread} ends.
   *
   * @throws AssertionError if it is still alive after {@code limit}, with its stack
   */
  public static void join(String what, Duration limit, Thread thread) throws InterruptedException {
    thread.join(limit.toMillis());
    if (thread.isAlive()) {
      StringBuilder stack = new StringBuilder();
      for (StackTraceElement frame : thread.getStackTrace()) {
        stack.append("\n\tat ").append(frame);
      }
      throw new AssertionError(
          String.format(
                  Locale.ROOT,
                  "%s did not end within %s; thread %s is at:",
                  what,
                  describe(limit),
                  thread.getName())
              + stack);
    }
  }

  /**
   * Waits until {@code process} exits and returns its exit code.
   *
   * @throws AssertionError if it is still running after {@code limit}; the process is then killed
   */
  public static int exitOf(String what, Duration limit, Process process)
      throws InterruptedException {
    if (!process.waitFor(limit.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(
          String.format(
              Locale.ROOT, "%s did not exit within %s; killed it", what, describe(limit)));
    }
    return process.exitValue();
  }

  /** "180 s", "1.5 s", "250 ms": the unit a reader takes in at a glance. */
  static String describe(Duration d) {
    long millis = d.toMillis();
    if (millis < 1000) {
      return millis + " ms";
    }
    if (millis % 1000 == 0) {
      return millis / 1000 + " s";
    }
    return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
  }
}
