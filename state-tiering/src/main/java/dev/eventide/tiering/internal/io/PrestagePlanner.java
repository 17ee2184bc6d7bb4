package dev.eventide.tiering.internal.io;

/**
 * When to pre-stage a window's blocks (Aion, Section 4): a late pane fires at the next watermark
 * advance, so with periodic watermarks the firing is expected one watermark period after the last
 * advance. Reading the blocks Δt before it — Δt learned from how long staging took — has them in
 * memory in time without holding them longer than needed. Until the watermark period and the
 * staging time are known, pre-staging starts at once (on the first late event).
 *
 * <p>Both are exponentially weighted moving averages, of the processing time between watermark
 * advances and of the time to stage one block; Δt is the staging time of the window's blocks times
 * a safety factor. Thread-safe: staging times are reported from the I/O thread.
 */
public final class PrestagePlanner {
  /** Weight of the newest observation in the moving averages. */
  static final double WEIGHT = 0.2;

  /** Δt is this many times the expected staging time, for the variance of I/O. */
  static final double SAFETY = 2.0;

  /** Advances this far apart (or more) are not a period: the source was idle. */
  static final long MAX_PERIOD_NANOS = 60_000_000_000L;

  private long lastWatermarkMillis = Long.MIN_VALUE;
  private long lastAdvanceNanos = -1;
  private double periodNanos = -1;
  private double stagingNanosPerBlock = -1;

  /** Notes the input watermark seen at processing time {@code nowNanos}. */
  public synchronized void observeWatermark(long watermarkMillis, long nowNanos) {
    if (watermarkMillis <= lastWatermarkMillis) {
      return;
    }
    if (lastAdvanceNanos >= 0 && lastWatermarkMillis != Long.MIN_VALUE) {
      long interval = nowNanos - lastAdvanceNanos;
      if (interval > 0 && interval < MAX_PERIOD_NANOS) {
        periodNanos = periodNanos < 0 ? interval : average(periodNanos, interval);
      }
    }
    lastWatermarkMillis = watermarkMillis;
    lastAdvanceNanos = nowNanos;
  }

  /** Notes that staging {@code blocks} blocks took {@code nanos}. */
  public synchronized void observeStaging(int blocks, long nanos) {
    if (blocks <= 0 || nanos < 0) {
      return;
    }
    double perBlock = (double) nanos / blocks;
    stagingNanosPerBlock =
        stagingNanosPerBlock < 0 ? perBlock : average(stagingNanosPerBlock, perBlock);
  }

  /**
   * How long to wait, from {@code nowNanos}, before pre-staging {@code blocks} blocks for a late
   * firing at the next watermark advance: 0 when it should start at once.
   */
  public synchronized long delayNanos(int blocks, long nowNanos) {
    if (periodNanos < 0 || stagingNanosPerBlock < 0 || lastAdvanceNanos < 0) {
      return 0;
    }
    double expectedFiring = lastAdvanceNanos + periodNanos;
    double start = expectedFiring - SAFETY * stagingNanosPerBlock * blocks;
    return (long) Math.max(0, start - nowNanos);
  }

  private static double average(double current, double observed) {
    return (1 - WEIGHT) * current + WEIGHT * observed;
  }
}
