package dev.eventide.trends.internal.engine;

/**
 * The windows of a query's {@code WITHIN w SLIDE s}: window k is [k·s, k·s + w). Which windows hold
 * a time and where they end, in one place for the engines and the Beam adapter.
 *
 * <p>Exact wherever the windows lie in the range of a long; beyond it, starts and ends saturate at
 * {@code Long.MIN_VALUE} and {@code Long.MAX_VALUE} and never wrap, so no arithmetic near the ends
 * of the range (a watermark at the start of time, an event at the last millisecond) overflows.
 * {@link #isExact} tells whether a window can be represented.
 *
 * <pre>{@code
 * SlidingWindows w = SlidingWindows.of(20_000, 5_000);  // WITHIN 20 seconds SLIDE 5 seconds
 * w.firstEnd(26_000);        // 30_000: [10 s, 30 s) is the earliest window holding 26 s
 * w.lastEnd(26_000);         // 45_000: [25 s, 45 s) is the latest
 * w.lastEndAtOrBefore(44_999); // 40_000
 * }</pre>
 */
public record SlidingWindows(long within, long slide) implements java.io.Serializable {

  /**
   * @throws IllegalArgumentException if {@code within} or {@code slide} is not positive
   */
  public SlidingWindows {
    if (within <= 0 || slide <= 0) {
      throw new IllegalArgumentException(
          "windows need WITHIN > 0 and SLIDE > 0, but were " + within + " and " + slide + " ms");
    }
  }

  /** The windows of {@code WITHIN within SLIDE slide}, both in milliseconds. */
  public static SlidingWindows of(long within, long slide) {
    return new SlidingWindows(within, slide);
  }

  /** The start of window k (saturated). */
  public long start(long k) {
    long high = Math.multiplyHigh(k, slide);
    long low = k * slide;
    if ((high == 0 && low >= 0) || (high == -1 && low < 0)) {
      return low;
    }
    return high < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
  }

  /** The end (exclusive) of window k (saturated). */
  public long end(long k) {
    return endOf(start(k));
  }

  /** The end (exclusive) of the window that starts at {@code start} (saturated). */
  public long endOf(long start) {
    return saturatedAdd(start, within);
  }

  /** Whether window k's start and end are both in the range of a long. */
  public boolean isExact(long k) {
    try {
      Math.addExact(Math.multiplyExact(k, slide), within);
      return true;
    } catch (ArithmeticException overflow) {
      return false;
    }
  }

  /** The index of the latest window that holds time t. */
  public long lastIndex(long t) {
    return Math.floorDiv(t, slide);
  }

  /** The index of the earliest window that starts at or after time t. */
  public long firstStartingAtOrAfter(long t) {
    long k = lastIndex(t);
    return start(k) < t ? k + 1 : k;
  }

  // With within = q·slide + r and t = floor(t/slide)·slide + m, window floor(t/slide) − q ends at
  // t − m + r: it holds t if r > m, else the next one is the earliest that does. Offsets from t
  // stay within one slide, so nothing here overflows before it saturates.

  /** The index of the earliest window that holds time t (saturated). */
  public long firstIndex(long t) {
    long below = Math.floorDiv(within, slide) - (remainder() <= Math.floorMod(t, slide) ? 1 : 0);
    long k = lastIndex(t) - below;
    // Overflow of the subtraction: below >= -1, so only towards the ends of the range.
    if (below > 0 && k > lastIndex(t)) {
      return Long.MIN_VALUE;
    }
    if (below < 0 && k < lastIndex(t)) {
      return Long.MAX_VALUE;
    }
    return k;
  }

  /** The end of the earliest window that holds time t (saturated). */
  public long firstEnd(long t) {
    long offset = remainder() - Math.floorMod(t, slide);
    return saturatedAdd(t, offset > 0 ? offset : offset + slide);
  }

  /** The end of the latest window that holds time t (saturated). */
  public long lastEnd(long t) {
    return saturatedAdd(t, within - Math.floorMod(t, slide));
  }

  /**
   * The end of the latest window that ends at or before {@code t} ({@code Long.MIN_VALUE} if none
   * does in the range of a long): once the watermark is past {@code t}, every window up to it has
   * closed.
   */
  public long lastEndAtOrBefore(long t) {
    long offset = remainder() - Math.floorMod(t, slide);
    return saturatedAdd(t, offset > 0 ? offset - slide : offset);
  }

  private long remainder() {
    return Math.floorMod(within, slide);
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : sum;
  }
}
