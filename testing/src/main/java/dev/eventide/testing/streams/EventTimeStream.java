package dev.eventide.testing.streams;

import dev.eventide.runtime.internal.WindowAssignment;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Builds a {@link TestStream} of an event-time scenario and checks, as each event is added, that it
 * really is what the test says: on time, late but within the allowed lateness, or late beyond it. A
 * test that says "late" about an event that is on time fails at construction instead of passing for
 * the wrong reason.
 *
 * <pre>{@code
 * EventTimeStream<String> s =
 *     EventTimeStream.of(StringUtf8Coder.of())
 *         .withWindowing(FixedWindows.of(Duration.standardMinutes(1)), Duration.standardMinutes(5))
 *         .onTime("a", t(10))
 *         .onTime("b", t(5))                      // out of order, still on time
 *         .advanceWatermarkTo(t(70))              // window [0, 60) fires on time
 *         .lateWithinLateness("c", t(20))         // a late pane for [0, 60)
 *         .advanceWatermarkTo(t(500))             // [0, 60) expires at 59.999 + 5 min
 *         .lateBeyondLateness("d", t(30));        // dropped
 * TestStream<String> stream = s.build();
 * List<TimestampedValue<String>> kept = s.kept();  // a, b, c
 * }</pre>
 *
 * <p>The rules are Beam's: an element is late for a window once the watermark is past the window's
 * {@code maxTimestamp()}, and a window expires once {@code maxTimestamp() + allowedLateness} is
 * before the watermark. Windowing must be non-merging (sessions are not supported). Instances are
 * mutable builders; {@link #build()} may be called more than once.
 */
public final class EventTimeStream<T> {
  private final Coder<T> coder;
  private final List<Step<T>> steps = new ArrayList<>();
  private final GatedReplay.Builder<T> replay;
  private final List<TimestampedValue<T>> kept = new ArrayList<>();
  private final List<TimestampedValue<T>> dropped = new ArrayList<>();
  private WindowFn<?, ?> windowFn;
  private Duration allowedLateness = Duration.ZERO;
  private Instant watermark = BoundedWindow.TIMESTAMP_MIN_VALUE;

  private EventTimeStream(Coder<T> coder) {
    this.coder = coder;
    this.replay = GatedReplay.builder(coder);
  }

  /** Returns an empty stream of elements encoded with {@code coder}. */
  public static <T> EventTimeStream<T> of(Coder<T> coder) {
    return new EventTimeStream<>(coder);
  }

  /**
   * Declares the windowing of the transform under test, which {@link #lateWithinLateness} and
   * {@link #lateBeyondLateness} check events against.
   *
   * @throws IllegalArgumentException if the window function merges or the lateness is negative
   */
  public EventTimeStream<T> withWindowing(WindowFn<?, ?> windowFn, Duration allowedLateness) {
    if (!windowFn.isNonMerging()) {
      throw new IllegalArgumentException(
          "EventTimeStream supports non-merging windows only, but got " + windowFn);
    }
    if (allowedLateness.isShorterThan(Duration.ZERO)) {
      throw new IllegalArgumentException(
          "allowedLateness must be >= 0, but was " + allowedLateness);
    }
    this.windowFn = windowFn;
    this.allowedLateness = allowedLateness;
    return this;
  }

  /**
   * Adds an element at or after the watermark. Elements may come in any order of timestamps
   * (out-of-order events) as long as none is behind the watermark.
   */
  public EventTimeStream<T> onTime(T value, Instant timestamp) {
    if (timestamp.isBefore(watermark)) {
      throw new IllegalArgumentException(
          String.format(
              "element %s at %s is not on time: the watermark is already at %s; use"
                  + " lateWithinLateness or lateBeyondLateness",
              value, timestamp, watermark));
    }
    return add(value, timestamp, true);
  }

  /**
   * Adds an element that is late for at least one of its windows (the watermark passed its end)
   * while at least one of its windows has not expired, so the transform under test must still take
   * it into account.
   */
  public EventTimeStream<T> lateWithinLateness(T value, Instant timestamp) {
    List<BoundedWindow> windows = windowsOf(value, timestamp, "lateWithinLateness");
    boolean lateSomewhere = windows.stream().anyMatch(w -> watermark.isAfter(w.maxTimestamp()));
    boolean aliveSomewhere = windows.stream().anyMatch(w -> !isExpired(w));
    if (!lateSomewhere || !aliveSomewhere) {
      throw new IllegalArgumentException(
          String.format(
              "element %s at %s is not late within the allowed lateness %s at watermark %s: %s",
              value,
              timestamp,
              allowedLateness,
              watermark,
              !lateSomewhere
                  ? "no window of it has been passed by the watermark (it is on time)"
                  : "every window of it has expired (it is late beyond the allowed lateness)"));
    }
    return add(value, timestamp, true);
  }

  /** Adds an element all of whose windows have expired, so a runner drops it. */
  public EventTimeStream<T> lateBeyondLateness(T value, Instant timestamp) {
    List<BoundedWindow> windows = windowsOf(value, timestamp, "lateBeyondLateness");
    for (BoundedWindow w : windows) {
      if (!isExpired(w)) {
        throw new IllegalArgumentException(
            String.format(
                "element %s at %s is not late beyond the allowed lateness %s at watermark %s:"
                    + " its window %s expires only after %s",
                value,
                timestamp,
                allowedLateness,
                watermark,
                w,
                w.maxTimestamp().plus(allowedLateness)));
      }
    }
    return add(value, timestamp, false);
  }

  /**
   * Advances the watermark.
   *
   * @throws IllegalArgumentException if {@code newWatermark} is not after the current one
   */
  public EventTimeStream<T> advanceWatermarkTo(Instant newWatermark) {
    if (!newWatermark.isAfter(watermark)) {
      throw new IllegalArgumentException(
          String.format(
              "the watermark only moves forward: %s is not after %s", newWatermark, watermark));
    }
    watermark = newWatermark;
    steps.add(builder -> builder.advanceWatermarkTo(newWatermark));
    replay.advanceWatermarkTo(newWatermark);
    return this;
  }

  /** The current watermark; before the first advance, the beginning of time. */
  public Instant watermark() {
    return watermark;
  }

  /** The elements a runner keeps: on time or late within the allowed lateness, in input order. */
  public List<TimestampedValue<T>> kept() {
    return List.copyOf(kept);
  }

  /** The elements a runner drops as late beyond the allowed lateness, in input order. */
  public List<TimestampedValue<T>> dropped() {
    return List.copyOf(dropped);
  }

  /** Returns the {@link TestStream}, ending with the watermark at infinity. */
  public TestStream<T> build() {
    TestStream.Builder<T> builder = TestStream.create(coder);
    for (Step<T> step : steps) {
      builder = step.apply(builder);
    }
    return builder.advanceWatermarkToInfinity();
  }

  /**
   * Returns the same scenario as a {@link GatedReplay}: for runners whose {@code TestStream} lets
   * elements overtake watermarks (Flink), a source that waits at each watermark advance until the
   * watermark has reached its consumers, so that the elements this stream calls late are late.
   */
  public GatedReplay<T> replay() {
    return replay.build();
  }

  private EventTimeStream<T> add(T value, Instant timestamp, boolean keep) {
    TimestampedValue<T> element = TimestampedValue.of(value, timestamp);
    (keep ? kept : dropped).add(element);
    steps.add(builder -> builder.addElements(element));
    replay.add(value, timestamp);
    return this;
  }

  private boolean isExpired(BoundedWindow window) {
    return window.maxTimestamp().plus(allowedLateness).isBefore(watermark);
  }

  private List<BoundedWindow> windowsOf(T value, Instant timestamp, String method) {
    if (windowFn == null) {
      throw new IllegalStateException(
          method + " needs the transform's windowing: call withWindowing(windowFn, lateness)");
    }
    return List.<BoundedWindow>copyOf(WindowAssignment.assign(windowFn, value, timestamp));
  }

  @FunctionalInterface
  private interface Step<T> {
    TestStream.Builder<T> apply(TestStream.Builder<T> builder);
  }
}
