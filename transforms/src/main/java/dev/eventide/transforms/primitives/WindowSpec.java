package dev.eventide.transforms.primitives;

import java.io.Serializable;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.NonMergingWindowFn;
import org.apache.beam.sdk.transforms.windowing.SlidingWindows;
import org.joda.time.Duration;

/**
 * The paper's window Γ(WA, WS): instances {@code [ℓ·WA, ℓ·WA + WS)} for integers ℓ, tumbling when
 * the advance WA equals the size WS, sliding when WA &lt; WS.
 *
 * <pre>{@code
 * WindowSpec minutes = WindowSpec.tumbling(Duration.standardMinutes(1));
 * WindowSpec hours = WindowSpec.sliding(Duration.standardHours(1), Duration.standardMinutes(10));
 * hours.size();      // WS: 1 hour
 * hours.advance();   // WA: 10 minutes; an event at 10:25 is in the instances from 9:30 to 10:20
 * }</pre>
 */
public final class WindowSpec implements Serializable {
  private static final long serialVersionUID = 1L;

  /** δ, the smallest step of event time: Beam's millisecond. */
  public static final Duration DELTA = Duration.millis(1);

  private final Duration advance;
  private final Duration size;

  private WindowSpec(Duration advance, Duration size) {
    if (size.getMillis() <= 0) {
      throw new IllegalArgumentException("window size WS must be > 0, but was " + size);
    }
    if (advance.getMillis() <= 0 || advance.isLongerThan(size)) {
      throw new IllegalArgumentException(
          String.format("window advance WA must be in (0, WS = %s], but was %s", size, advance));
    }
    this.advance = advance;
    this.size = size;
  }

  /** Returns tumbling windows of {@code size} (WA = WS). */
  public static WindowSpec tumbling(Duration size) {
    return new WindowSpec(size, size);
  }

  /** Returns sliding windows of {@code size} starting every {@code advance} (WA ≤ WS). */
  public static WindowSpec sliding(Duration size, Duration advance) {
    return new WindowSpec(advance, size);
  }

  /** Returns the δ window: tumbling windows of one millisecond, each holding one timestamp. */
  public static WindowSpec delta() {
    return tumbling(DELTA);
  }

  /** WA. */
  public Duration advance() {
    return advance;
  }

  /** WS. */
  public Duration size() {
    return size;
  }

  public boolean isTumbling() {
    return advance.equals(size);
  }

  /** The Beam window function for these windows. */
  public NonMergingWindowFn<Object, IntervalWindow> windowFn() {
    return isTumbling() ? FixedWindows.of(size) : SlidingWindows.of(size).every(advance);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof WindowSpec
        && ((WindowSpec) o).advance.equals(advance)
        && ((WindowSpec) o).size.equals(size);
  }

  @Override
  public int hashCode() {
    return advance.hashCode() * 31 + size.hashCode();
  }

  @Override
  public String toString() {
    return isTumbling() ? "tumbling(" + size + ")" : "sliding(" + size + " every " + advance + ")";
  }
}
