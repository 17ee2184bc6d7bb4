package dev.eventide.trends.beam;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.testing.runners.RestoreDifferential;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.testing.streams.GatedReplay;
import dev.eventide.trends.Event;
import dev.eventide.trends.query.WorkloadChange;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A change decided once stays decided across a restore (issue 72, embedded Flink): {@code
 * TrendAggregate} with live workload changes runs a gated schedule undisturbed and with a task
 * failure after a completed checkpoint, and every result, dead letter and refused change is the
 * same.
 */
class TrendAggregateLiveChangesRestoreTest {
  private static final String Q8 =
      """
      QUERY q8
      RETURN COUNT(*)
      PATTERN B+
      GROUPBY sensor
      WITHIN 10 seconds SLIDE 10 seconds
      """;
  private static final String Q9 = Q8.replace("q8", "q9");

  @TempDir Path versions;

  /**
   * Issue 72's sequence in seconds: a change decided at 5 s; the watermark at 40 s and a checkpoint
   * (the shards have routed the events up to 40 s); "add q9 at 30 s" arrives and is refused as
   * late; the task fails on it. The restored change log judged it by its restarted watermark and
   * the time it had decided up to (5 s, then 20 s): it applied the change, and q9's windows from 30
   * s lacked the events of 30 to 40 s, with no error. Judged by the floor, it is refused again.
   */
  @Test
  void aChangeRefusedAsLateStaysRefused() {
    RestoreDifferential.Outcome outcome =
        RestoreDifferential.run(
            () ->
                GatedReplay.builder(EventCoder.of())
                    .add(b(1_000, 7), at(1))
                    .add(change(5_000, Q8), at(5))
                    .add(b(6_000, 7), at(6))
                    .advanceWatermarkTo(at(20)) // q8 from 5 s decided
                    .add(b(31_000, 7), at(31))
                    .add(b(33_000, 7), at(33))
                    .advanceWatermarkTo(at(40))
                    .holdUntilCheckpointed()
                    .holdUntilCheckpointed()
                    .add(change(30_000, Q9), at(30)) // late: the task fails on it, once
                    .add(b(41_000, 7), at(41))
                    .advanceWatermarkTo(at(60))
                    .build(),
            EventCoder.of(),
            e -> e.type().equals("CHANGE") && e.time() == 30_000,
            1,
            events -> steps(events, this::changesFromTheStream));
    outcome.assertSame();
    String lines = String.join("\n", outcome.undisturbed());
    assertTrue(lines.contains("refused q9 at 30000: late"), lines);
    assertTrue(lines.contains("q8 7 [30000, 40000) pane 0 ON_TIME: 3"), lines);
  }

  /**
   * The changes come from a bounded input, which Flink reads again from its start after a restore:
   * a change applied before the checkpoint is not refused as late, and none is reported twice.
   */
  @Test
  void changesReadAgainAfterARestoreAreTheSameChanges() {
    RestoreDifferential.Outcome outcome =
        RestoreDifferential.run(
            () ->
                GatedReplay.builder(EventCoder.of())
                    .add(b(1_000, 7), at(1))
                    .add(b(6_000, 7), at(6))
                    .advanceWatermarkTo(at(20))
                    .add(b(31_000, 7), at(31))
                    .advanceWatermarkTo(at(40))
                    .holdUntilCheckpointed()
                    .holdUntilCheckpointed()
                    .add(b(35_000, 7), at(35)) // the task fails on it, once
                    .add(b(51_000, 7), at(51))
                    .advanceWatermarkTo(at(60))
                    .add(b(71_000, 7), at(71))
                    .advanceWatermarkTo(at(90))
                    .build(),
            EventCoder.of(),
            e -> e.time() == 35_000,
            1,
            events -> steps(events, this::changesFromABoundedInput));
    outcome.assertSame();
    String lines = String.join("\n", outcome.undisturbed());
    assertTrue(!lines.contains("refused"), lines);
    assertTrue(lines.contains("q9 7 [70000, 80000) pane 0 ON_TIME: 1"), lines);
  }

  /**
   * A change sent twice (a bounded input read again, a sender that retries) is one change: again
   * after it was decided, and again while it waits to be decided. Neither copy is refused or
   * reported (on the DirectRunner; counted as {@code repeatedChanges}).
   */
  @Test
  void aChangeSentTwiceIsDecidedOnce() {
    Pipeline p = Pipeline.create(TestRunner.DIRECT.options(1));
    PCollection<Event> all =
        p.apply(
            TestStream.create(EventCoder.of())
                .addElements(
                    TimestampedValue.of(b(1_000, 7), at(1)),
                    TimestampedValue.of(change(5_000, Q8), at(5)))
                .advanceWatermarkTo(at(20)) // q8 from 5 s decided
                .addElements(
                    TimestampedValue.of(change(5_000, Q8), at(5)), // again, decided
                    TimestampedValue.of(change(60_000, Q9), at(60)),
                    TimestampedValue.of(change(60_000, Q9), at(60)), // again, pending
                    TimestampedValue.of(b(71_000, 7), at(71)))
                .advanceWatermarkToInfinity());
    PCollection<String> lines = steps(all, this::changesFromTheStream);
    PAssert.that(lines.apply(Filter.by((String l) -> l.startsWith("refused")))).empty();
    PAssert.that(lines.apply("Q9", Filter.by((String l) -> l.startsWith("q9 "))))
        .containsInAnyOrder("q9 7 [70000, 80000) pane 0 ON_TIME: 1");
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals(2, TrendMetrics.counter(result, "repeatedChanges"));
  }

  private PCollection<WorkloadChange> changesFromTheStream(PCollection<Event> all) {
    return all.apply("Changes", Filter.by((Event e) -> e.type().equals("CHANGE")))
        .apply(
            "As changes",
            MapElements.into(TypeDescriptor.of(WorkloadChange.class))
                .via((Event e) -> WorkloadChange.add(e.time(), (String) e.attribute("add"))))
        .setCoder(WorkloadChangeCoder.of());
  }

  private PCollection<WorkloadChange> changesFromABoundedInput(PCollection<Event> all) {
    return all.getPipeline()
        .apply(
            "Changes",
            Create.timestamped(
                    List.of(
                        TimestampedValue.of(WorkloadChange.add(5_000, Q8), at(5)),
                        TimestampedValue.of(WorkloadChange.add(60_000, Q9), at(60))))
                .withCoder(WorkloadChangeCoder.of()));
  }

  private PCollection<String> steps(
      PCollection<Event> all, Function<PCollection<Event>, PCollection<WorkloadChange>> changes) {
    PCollection<Event> events =
        all.apply("Events", Filter.by((Event e) -> !e.type().equals("CHANGE")))
            .setCoder(EventCoder.of());
    TrendAggregate.Result out =
        events.apply(
            TrendAggregate.of(TrendAggregateStateEndsTest.WORKLOAD)
                .withWorkloadChanges(
                    changes.apply(all),
                    versions.resolve(UUID.randomUUID().toString()).toUri().toString()));
    return PCollectionList.of(
            out.results()
                .apply("Describe", ParDo.of(new TrendAggregateRestoreTest.DescribeResult()))
                .apply("Into the global window", Window.into(new GlobalWindows())))
        .and(
            out.deadLetters()
                .apply(
                    "Describe dead",
                    MapElements.into(TypeDescriptor.of(String.class))
                        .via((DeadLetter d) -> "dead " + d.event().time() + " " + d.reason())))
        .and(
            out.refusedChanges()
                .apply(
                    "Describe refused",
                    MapElements.into(TypeDescriptor.of(String.class))
                        .via(
                            (RefusedChange r) ->
                                "refused "
                                    + r.change().add().lines().findFirst().orElse("").substring(6)
                                    + " at "
                                    + r.change().time()
                                    + ": "
                                    + r.reason()))
                .apply("Refused into the global window", Window.into(new GlobalWindows())))
        .apply(Flatten.pCollections());
  }

  private static Instant at(long second) {
    return new Instant(second * 1000);
  }

  private static Event b(long time, int sensor) {
    return Event.of("B", time, "sensor", sensor);
  }

  private static Event change(long time, String add) {
    return Event.of("CHANGE", time, "add", add);
  }
}
