package dev.eventide.testing.streams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.eventide.testing.runners.OnEachRunner;
import dev.eventide.testing.runners.TestRunner;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.Sessions;
import org.apache.beam.sdk.transforms.windowing.SlidingWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

class EventTimeStreamTest {
  private static final Duration MINUTE = Duration.standardMinutes(1);
  private static final Duration LATENESS = Duration.standardMinutes(5);

  private static Instant t(long seconds) {
    return new Instant(seconds * 1000);
  }

  private static EventTimeStream<String> scenario() {
    return EventTimeStream.of(StringUtf8Coder.of())
        .withWindowing(FixedWindows.of(MINUTE), LATENESS)
        .onTime("a", t(10))
        .onTime("b", t(5))
        .onTime("x", t(65))
        .advanceWatermarkTo(t(70))
        .lateWithinLateness("c", t(20))
        .advanceWatermarkTo(t(500))
        .lateBeyondLateness("d", t(30));
  }

  @Test
  void classifiesEventsAsARunnerWill() {
    EventTimeStream<String> s = scenario();
    assertThat(
        s.kept(),
        contains(
            TimestampedValue.of("a", t(10)),
            TimestampedValue.of("b", t(5)),
            TimestampedValue.of("x", t(65)),
            TimestampedValue.of("c", t(20))));
    assertThat(s.dropped(), contains(TimestampedValue.of("d", t(30))));
  }

  /** Flink does not order TestStream watermarks before later elements; see TestRunner. */
  @OnEachRunner(TestRunner.DIRECT)
  void theDirectRunnerAgreesWithTheClassification(TestPipeline p) {
    PCollection<Long> counts =
        p.apply(scenario().build())
            .apply(
                Window.<String>into(FixedWindows.of(MINUTE))
                    .withAllowedLateness(LATENESS)
                    .accumulatingFiredPanes())
            .apply(Combine.globally(Count.<String>combineFn()).withoutDefaults());
    IntervalWindow first = new IntervalWindow(t(0), MINUTE);
    PAssert.that(counts).inOnTimePane(first).containsInAnyOrder(2L);
    // c is counted in a late pane; d is dropped, so no pane ever counts 4.
    PAssert.that(counts).inWindow(first).containsInAnyOrder(2L, 3L);
    PAssert.that(counts).inOnTimePane(new IntervalWindow(t(60), MINUTE)).containsInAnyOrder(1L);
    p.run();
  }

  @Test
  void rejectsOnTimeElementBehindTheWatermark() {
    EventTimeStream<String> s = EventTimeStream.of(StringUtf8Coder.of()).advanceWatermarkTo(t(100));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> s.onTime("a", t(50)));
    assertThat(e.getMessage(), containsString("is not on time: the watermark is already at"));
  }

  @Test
  void rejectsLateClaimForAnOnTimeElement() {
    EventTimeStream<String> s =
        EventTimeStream.of(StringUtf8Coder.of())
            .withWindowing(FixedWindows.of(MINUTE), LATENESS)
            .advanceWatermarkTo(t(30));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> s.lateWithinLateness("a", t(20)));
    assertThat(e.getMessage(), containsString("no window of it has been passed by the watermark"));
  }

  @Test
  void rejectsWithinLatenessClaimForAnExpiredElement() {
    EventTimeStream<String> s =
        EventTimeStream.of(StringUtf8Coder.of())
            .withWindowing(FixedWindows.of(MINUTE), LATENESS)
            .advanceWatermarkTo(t(361));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> s.lateWithinLateness("a", t(20)));
    assertThat(e.getMessage(), containsString("every window of it has expired"));
  }

  @Test
  void rejectsBeyondLatenessClaimWhileAWindowIsAlive() {
    // [0, 60) expires when the watermark passes 59.999 s + 5 min = 359.999 s.
    EventTimeStream<String> s =
        EventTimeStream.of(StringUtf8Coder.of())
            .withWindowing(FixedWindows.of(MINUTE), LATENESS)
            .advanceWatermarkTo(new Instant(359_999));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> s.lateBeyondLateness("a", t(20)));
    assertThat(e.getMessage(), containsString("expires only after"));
    s.advanceWatermarkTo(new Instant(360_000)).lateBeyondLateness("a", t(20));
  }

  @Test
  void slidingWindowElementIsWithinLatenessWhileAnyWindowIsAlive() {
    // 20 s lies in [-60, 60) and [0, 120); at watermark 200 s with lateness 1 min only the
    // second is alive.
    EventTimeStream<String> s =
        EventTimeStream.of(StringUtf8Coder.of())
            .withWindowing(SlidingWindows.of(Duration.standardMinutes(2)).every(MINUTE), MINUTE)
            .advanceWatermarkTo(t(170))
            .lateWithinLateness("a", t(20));
    assertThat(s.kept(), contains(TimestampedValue.of("a", t(20))));
  }

  @Test
  void rejectsMergingWindowsNegativeLatenessAndBackwardWatermarks() {
    EventTimeStream<String> s = EventTimeStream.of(StringUtf8Coder.of());
    assertThrows(
        IllegalArgumentException.class,
        () -> s.withWindowing(Sessions.withGapDuration(MINUTE), MINUTE));
    assertThrows(
        IllegalArgumentException.class,
        () -> s.withWindowing(FixedWindows.of(MINUTE), Duration.millis(-1)));
    s.advanceWatermarkTo(t(10));
    assertThrows(IllegalArgumentException.class, () -> s.advanceWatermarkTo(t(10)));
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> s.lateWithinLateness("a", t(1)));
    assertThat(e.getMessage(), containsString("call withWindowing"));
  }
}
