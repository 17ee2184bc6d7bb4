package dev.eventide.trends.beam;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.eventide.testing.runners.TestRunner;
import dev.eventide.testing.streams.GatedReplay;
import dev.eventide.testing.waits.Await;
import dev.eventide.trends.Event;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.query.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * GROUPBY groups that come and go: many distinct groups, each with a few events in one window. A
 * (sharing unit, group) key's state ends once nothing is pending for it (no open window, nothing
 * kept for lateness, no timer to come), by the expiry timers of its own windows: once the input
 * ends, no key holds state.
 */
class TrendAggregateStateEndsTest {
  /** Runs of B per sensor in tumbling windows of 10 s (the recovery test's cleared key too). */
  static final Workload WORKLOAD =
      Workload.parse(
          """
          QUERY runs
          RETURN COUNT(*)
          PATTERN B+
          GROUPBY sensor
          WITHIN 10 seconds SLIDE 10 seconds
          """);

  @ParameterizedTest(name = "{0}")
  @EnumSource(TestRunner.class)
  void everyGroupsStateEnds(TestRunner runner) {
    // The DirectRunner fires each key's timers in a bundle of its own: fewer groups there.
    int groups = runner == TestRunner.FLINK ? 100_000 : 2_000;
    List<TimestampedValue<Event>> events = new ArrayList<>();
    for (int g = 0; g < groups; g++) {
      long at = (g % 1_000) * 100L; // groups spread over 100 s of event time, ten windows
      for (long i = 0; i < 2; i++) {
        Event e = Event.of("B", at + i, "sensor", g);
        events.add(TimestampedValue.of(e, new Instant(e.time())));
      }
    }
    Pipeline p = Pipeline.create(runner.options(2));
    PCollection<TrendResult> results =
        p.apply(Create.timestamped(events).withCoder(EventCoder.of()))
            .apply(TrendAggregate.of(WORKLOAD).withAllowedLateness(Duration.standardSeconds(30)))
            .results();
    // One result per group: B+ over two events is three trends.
    PAssert.thatSingleton(results.apply(Window.into(new GlobalWindows())).apply(Count.globally()))
        .isEqualTo((long) groups);
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals(0, TrendMetrics.counter(result, "keysHoldingState"), "keys holding state");
    assertEquals(0, TrendMetrics.counter(result, "clearedKeysRemembered"), "keys remembered");
    assertEquals(2L * groups, TrendMetrics.counter(result, "events"));
  }

  /**
   * Evaluated events are kept only while a late event could still enter a window holding them: in
   * tumbling windows without lateness none is (every window expires as it fires); with lateness, or
   * in sliding windows (an event's later window is still open when its first fires), every one is.
   * The results are the same either way.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(TestRunner.class)
  void eventsAreKeptOnlyWhileALateEventCouldUseThem(TestRunner runner) {
    Workload sliding =
        Workload.parse(
            """
            QUERY runs
            RETURN COUNT(*)
            PATTERN B+
            GROUPBY sensor
            WITHIN 10 seconds SLIDE 5 seconds
            """);
    int groups = 20;
    List<TimestampedValue<Event>> events = new ArrayList<>();
    for (int g = 0; g < groups; g++) {
      for (long i = 0; i < 3; i++) {
        Event e = Event.of("B", g * 1_000L + i, "sensor", g); // two groups per 10 s
        events.add(TimestampedValue.of(e, new Instant(e.time())));
      }
    }
    long all = events.size();
    assertEquals(0, retainedAndCheckWindows(runner, WORKLOAD, Duration.ZERO, events, groups));
    assertEquals(
        all,
        retainedAndCheckWindows(runner, WORKLOAD, Duration.standardSeconds(30), events, groups));
    assertEquals(all, retainedAndCheckWindows(runner, sliding, Duration.ZERO, events, 2 * groups));
  }

  /** Runs the workload, checks that every result counts 7 trends, returns eventsRetained. */
  private static long retainedAndCheckWindows(
      TestRunner runner,
      Workload workload,
      Duration lateness,
      List<TimestampedValue<Event>> events,
      long results) {
    Pipeline p = Pipeline.create(runner.options(2));
    PCollection<TrendResult> out =
        p.apply(Create.timestamped(events).withCoder(EventCoder.of()))
            .apply(TrendAggregate.of(workload).withAllowedLateness(lateness))
            .results();
    // B+ over a group's three events: seven trends, in each window holding them.
    PAssert.that(
            out.apply(
                MapElements.into(TypeDescriptors.strings()).via((TrendResult r) -> r.value())))
        .satisfies(
            values -> {
              List<String> all = new ArrayList<>();
              values.forEach(all::add);
              assertEquals(results, all.size(), "results " + all);
              all.forEach(v -> assertEquals("7", v));
              return null;
            });
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals(0, TrendMetrics.counter(result, "keysHoldingState"), "keys holding state");
    return TrendMetrics.counter(result, "eventsRetained");
  }

  private static final AtomicBoolean ALL_GROUPS_HELD = new AtomicBoolean();
  private static final AtomicBoolean ALL_GROUPS_CLEARED = new AtomicBoolean();
  private static final AtomicBoolean ALL_GROUPS_FORGOTTEN = new AtomicBoolean();

  /**
   * State ends while the stream goes on, not only when it ends: 500 groups' events (in [0, 5 s));
   * the stream held open until every group's key holds state; the watermark to 60 s, past every
   * window's end plus the lateness of 5 s, and the stream held open there (the watermark far from
   * the end of time) until no key holds state and every cleared key remembers its watermark (for 50
   * s of event time); the watermark to 120 s, past that memory, and held until no key remembers;
   * then a new group's events, and the end. On the DirectRunner, which reports metrics while a
   * pipeline runs.
   */
  @Test
  void stateEndsWhileTheStreamGoesOn() throws Exception {
    ALL_GROUPS_HELD.set(false);
    ALL_GROUPS_CLEARED.set(false);
    ALL_GROUPS_FORGOTTEN.set(false);
    int groups = 500;
    GatedReplay.Builder<Event> replay = GatedReplay.builder(EventCoder.of());
    for (int g = 0; g < groups; g++) {
      replay = replay.add(Event.of("B", g * 10L, "sensor", g), new Instant(g * 10L));
    }
    replay =
        replay
            .holdUntil("every group's key holds state", () -> ALL_GROUPS_HELD.get())
            .advanceWatermarkTo(new Instant(60_000))
            .holdUntil("no key holds state", () -> ALL_GROUPS_CLEARED.get())
            .advanceWatermarkTo(new Instant(120_000))
            .holdUntil("no key remembers", () -> ALL_GROUPS_FORGOTTEN.get())
            .add(Event.of("B", 130_000, "sensor", groups), new Instant(130_000));
    PipelineOptions options = TestRunner.DIRECT.options(1);
    options.as(DirectOptions.class).setBlockOnRun(false);
    Pipeline p = Pipeline.create(options);
    p.apply(replay.build())
        .apply(
            TrendAggregate.of(WORKLOAD)
                .withAllowedLateness(Duration.standardSeconds(5))
                .withClearedKeyMemory(Duration.standardSeconds(50)));
    PipelineResult result = p.run();
    java.time.Duration limit = java.time.Duration.ofMinutes(3);
    Await.until(
        "keysHoldingState at " + groups + " before the watermark moves",
        limit,
        () -> TrendMetrics.counter(result, "keysHoldingState"),
        held -> held == groups);
    ALL_GROUPS_HELD.set(true);
    Await.until(
        "keysHoldingState at 0 at watermark 60 s, with the stream still open",
        limit,
        () -> TrendMetrics.counter(result, "keysHoldingState"),
        held -> held == 0);
    Await.until(
        "clearedKeysRemembered at " + groups + " at watermark 60 s",
        limit,
        () -> TrendMetrics.counter(result, "clearedKeysRemembered"),
        remembered -> remembered == groups);
    assertEquals(PipelineResult.State.RUNNING, result.getState(), "the stream is still open");
    ALL_GROUPS_CLEARED.set(true);
    Await.until(
        "clearedKeysRemembered at 0 at watermark 120 s, with the stream still open",
        limit,
        () -> TrendMetrics.counter(result, "clearedKeysRemembered"),
        remembered -> remembered == 0);
    assertEquals(PipelineResult.State.RUNNING, result.getState(), "the stream is still open");
    ALL_GROUPS_FORGOTTEN.set(true);
    result.waitUntilFinish();
    assertEquals(0, TrendMetrics.counter(result, "keysHoldingState"), "keys holding state");
    assertEquals(0, TrendMetrics.counter(result, "clearedKeysRemembered"), "keys remembered");
    assertEquals(groups + 1L, TrendMetrics.counter(result, "windowsEmitted"), "one per group");
  }

  /**
   * A group whose state went once its only window expired: its next events are judged by the
   * watermark, never by the missing state. One in the expired window is a dead letter (not a new
   * result for that window); one behind the watermark in a window still open is on time; one in a
   * window that has closed but not expired gives that window's first pane, late.
   */
  @Test
  void aClearedGroupJudgesItsNextEventsByTheWatermark() {
    TestPipeline p = TestPipeline.create().enableAbandonedNodeEnforcement(false);
    TestStream<Event> stream =
        TestStream.create(EventCoder.of())
            .addElements(at(1))
            .advanceWatermarkTo(new Instant(25_000)) // [0, 10 s) expired at 20 s: state cleared
            .addElements(at(5)) // its window expired: a dead letter
            .addElements(at(22)) // [20, 30 s) is open: on time
            .addElements(at(12)) // [10, 20 s) closed, not expired: its first pane, late
            .advanceWatermarkToInfinity();
    TrendAggregate.Result out =
        p.apply(stream)
            .apply(TrendAggregate.of(WORKLOAD).withAllowedLateness(Duration.standardSeconds(10)));
    PAssert.that(out.results().apply(ParDo.of(new Describe())))
        .containsInAnyOrder("0 ON_TIME 0 1", "20000 ON_TIME 0 1", "10000 LATE 0 1");
    PAssert.that(
            out.deadLetters()
                .apply(
                    MapElements.into(TypeDescriptors.longs())
                        .via((DeadLetter d) -> d.event().time())))
        .containsInAnyOrder(5_000L);
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals(0, TrendMetrics.counter(result, "keysHoldingState"), "keys holding state");
  }

  private static TimestampedValue<Event> at(long second) {
    Event e = Event.of("B", second * 1000, "sensor", 7);
    return TimestampedValue.of(e, new Instant(e.time()));
  }

  /** A result as its window's start, pane timing and index, and value. */
  private static final class Describe extends DoFn<TrendResult, String> {
    @ProcessElement
    public void process(@Element TrendResult r, PaneInfo pane, OutputReceiver<String> out) {
      out.output(
          r.windowStart() + " " + pane.getTiming() + " " + pane.getIndex() + " " + r.value());
    }
  }
}
