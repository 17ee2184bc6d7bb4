package dev.eventide.trends.beam;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.testing.runners.RestoreDifferential;
import dev.eventide.testing.streams.GatedReplay;
import dev.eventide.trends.Event;
import dev.eventide.trends.TrendResult;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A restore changes no result of {@code TrendAggregate} (issue 72's table, embedded Flink): {@code
 * B+ GROUPBY sensor WITHIN 10 seconds SLIDE 10 seconds}, no allowed lateness; group 7 at 1, 2 and 3
 * s; the watermark past 10 s, then far on; two completed checkpoints; then a straggler, on which
 * the task fails once in the second run; then group 8 at the watermark. The restored job's
 * watermark starts again at the start of time and its source replays the straggler before its
 * watermark: judged by the watermark floor the step had at the checkpoint, the straggler is a dead
 * letter in both runs, whether its group is cleared and remembered, cleared and forgotten, or never
 * seen.
 */
class TrendAggregateRestoreTest {

  /** Within the cleared-key memory (10 minutes): what the key remembers covered it before. */
  @Test
  void aStragglerOfAClearedGroupStaysADeadLetter() {
    assertSame(7, 40_000);
  }

  /** 20 minutes on: the group's memory is gone, the floor is not. */
  @Test
  void aStragglerOfAGroupClearedLongAgoStaysADeadLetter() {
    assertSame(7, 20 * 60_000);
  }

  /** A group never seen, in a window expired long before. */
  @Test
  void aStragglerOfANewGroupStaysADeadLetter() {
    assertSame(9, 40_000);
  }

  private static void assertSame(int stragglerGroup, long watermark) {
    RestoreDifferential.Outcome outcome =
        RestoreDifferential.run(
            () -> scenario(stragglerGroup, watermark),
            EventCoder.of(),
            e -> e.time() == STRAGGLER,
            1,
            TrendAggregateRestoreTest::steps);
    outcome.assertSame();
    String lines = String.join("\n", outcome.undisturbed());
    assertTrue(lines.contains("runs 7 [0, 10000) pane 0 ON_TIME: 7"), lines); // 2^3 - 1 trends
    assertTrue(lines.contains("dead 5000 " + stragglerGroup), lines);
    assertTrue(lines.contains("runs 8 [" + window(watermark) + ") pane 0 ON_TIME: 1"), lines);
  }

  private static final long STRAGGLER = 5_000;

  private static GatedReplay<Event> scenario(int stragglerGroup, long watermark) {
    return GatedReplay.builder(EventCoder.of())
        .add(b(1_000, 7), new Instant(1_000))
        .add(b(2_000, 7), new Instant(2_000))
        .add(b(3_000, 7), new Instant(3_000))
        .advanceWatermarkTo(new Instant(20_000)) // [0, 10 s) fired and expired: group 7 cleared
        .advanceWatermarkTo(new Instant(watermark))
        // A checkpoint, and one more: the floor the first released is in the second.
        .holdUntilCheckpointed()
        .holdUntilCheckpointed()
        .add(b(STRAGGLER, stragglerGroup), new Instant(STRAGGLER)) // the task fails on it, once
        .add(b(watermark + 1_000, 8), new Instant(watermark + 1_000))
        .advanceWatermarkTo(new Instant(watermark + 20_000))
        .build();
  }

  private static String window(long watermark) {
    long start = (watermark + 1_000) / 10_000 * 10_000;
    return start + ", " + (start + 10_000);
  }

  private static Event b(long time, int sensor) {
    return Event.of("B", time, "sensor", sensor);
  }

  private static PCollection<String> steps(PCollection<Event> events) {
    TrendAggregate.Result out =
        events.apply(
            TrendAggregate.of(TrendAggregateStateEndsTest.WORKLOAD)
                .withClearedKeyMemory(Duration.standardMinutes(10)));
    return PCollectionList.of(
            out.results()
                .apply("Describe", ParDo.of(new DescribeResult()))
                .apply("Into the global window", Window.into(new GlobalWindows())))
        .and(out.deadLetters().apply("Describe dead", ParDo.of(new DescribeDeadLetter())))
        .apply(Flatten.pCollections());
  }

  /** A result as a line: query, sensor, window, pane index and timing, value. */
  static final class DescribeResult extends DoFn<TrendResult, String> {
    @ProcessElement
    public void process(@Element TrendResult r, PaneInfo pane, OutputReceiver<String> out) {
      out.output(
          r.query()
              + " "
              + r.group().get("sensor")
              + " ["
              + r.windowStart()
              + ", "
              + r.windowEnd()
              + ") pane "
              + pane.getIndex()
              + " "
              + pane.getTiming()
              + ": "
              + r.value());
    }
  }

  private static final class DescribeDeadLetter extends DoFn<DeadLetter, String> {
    @ProcessElement
    public void process(@Element DeadLetter d, OutputReceiver<String> out) {
      out.output(
          "dead "
              + d.event().time()
              + " "
              + d.event().attribute("sensor")
              + " ("
              + d.reason()
              + ")");
    }
  }
}
