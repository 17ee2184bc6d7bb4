package dev.eventide.tiering;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.eventide.testing.runners.OnEachRunner;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.testing.streams.EventTimeStream;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The lateness gate's state (a key's cleanup schedule and lateness sample) ends once every window
 * of the key has expired by the allowed lateness: a key seen once does not cost memory for ever.
 * Shown by what it changes: a key that comes back after that starts again from the allowed
 * lateness, where a key still holding state keeps the bound it learned.
 */
class LatenessGateStateEndsTest {
  private static final Duration LATENESS = Duration.standardSeconds(60);

  private static Instant t(double seconds) {
    return new Instant(Math.round(seconds * 1000));
  }

  /** The sorted values of a window, "w" + its end in seconds. */
  private static final class Values implements WindowFunction<String, Long, String> {
    @Override
    public String apply(String key, BoundedWindow window, Iterable<Long> values) {
      List<Long> sorted = new ArrayList<>();
      values.forEach(sorted::add);
      sorted.sort(null);
      return "w" + (window.maxTimestamp().getMillis() + 1) / 1000 + " " + sorted;
    }
  }

  @OnEachRunner
  void aKeyWhoseWindowsAllExpiredForgetsTheBoundItLearned(TestPipeline p, TestRunner runner) {
    p.getOptions().as(FlinkPipelineOptions.class).setMaxBundleSize(1L);
    EventTimeStream<KV<String, Long>> events =
        EventTimeStream.of(KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of()))
            .withWindowing(FixedWindows.of(Duration.standardSeconds(10)), LATENESS)
            .onTime(KV.of("a", 1L), t(1))
            .onTime(KV.of("b", 1L), t(1))
            .advanceWatermarkTo(t(12))
            // 2,001 ms late: with coverage and confidence of one half, each key's bound for the
            // windows it creates from now on
            .lateWithinLateness(KV.of("a", 3L), t(3))
            .lateWithinLateness(KV.of("b", 3L), t(3))
            .onTime(KV.of("b", 95L), t(95)) // b stays: [90, 100) is open until 100 s + 2,001 ms
            .advanceWatermarkTo(t(80)) // a's last window [0, 10) expired at 70 s
            .advanceWatermarkTo(t(115))
            // 5,001 ms late for [100, 110): beyond b's learned bound, within the allowed lateness
            .lateWithinLateness(KV.of("a", 101L), t(101))
            .lateWithinLateness(KV.of("b", 101L), t(101));
    // The DirectRunner's TestStream keeps elements behind the watermarks; Flink's does not.
    PCollection<KV<String, Long>> input =
        runner == TestRunner.DIRECT ? p.apply(events.build()) : p.apply(events.replay());
    TieredWindow.Result<String, Long, String> result =
        input.apply(
            TieredWindow.of(FixedWindows.of(Duration.standardSeconds(10)), new Values())
                .withAllowedLateness(LATENESS)
                .withPredictiveCleanup(0.5, 0.5)
                .withStore("memory:" + UUID.randomUUID())
                .withDeadLetters());
    PAssert.that(
            result
                .results()
                .apply(
                    "DescribeResults",
                    MapElements.into(TypeDescriptors.strings())
                        .via((KV<String, String> kv) -> kv.getKey() + " " + kv.getValue())))
        .containsInAnyOrder(
            "a w10 [1]",
            "a w10 [1, 3]",
            "b w10 [1]",
            "b w10 [1, 3]",
            "b w100 [95]",
            "a w110 [101]");
    PAssert.that(
            result
                .deadLetters()
                .apply(
                    "DescribeDeadLetters",
                    MapElements.into(TypeDescriptors.strings())
                        .via(
                            (DeadLetter<String, Long> d) ->
                                d.key() + " " + d.value() + " cleanup=" + d.cleanupMillis())))
        .containsInAnyOrder("b 101 cleanup=2001");
    PipelineResult run = p.run();
    run.waitUntilFinish();
    assertEquals(0, TieringMetrics.counter(run, TieringMetrics.GATE_KEYS_HOLDING_STATE));
  }

  /**
   * Keys seen once each, a value apiece in one of ten windows: every key's gate state is cleared
   * (the counter of keys holding it is back at 0) and every window gives its one result.
   */
  @OnEachRunner
  void everyKeySeenOnceIsCleared(TestPipeline p, TestRunner runner) {
    int keys = runner == TestRunner.DIRECT ? 2_000 : 100_000;
    List<TimestampedValue<KV<String, Long>>> values = new ArrayList<>();
    for (int k = 0; k < keys; k++) {
      values.add(TimestampedValue.of(KV.of("key" + k, (long) k), t(k % 100)));
    }
    PCollection<Long> results =
        p.apply(Create.timestamped(values))
            .apply(
                TieredWindow.of(FixedWindows.of(Duration.standardSeconds(10)), new Values())
                    .withAllowedLateness(LATENESS)
                    .withStore("memory:" + UUID.randomUUID())
                    .withDeadLetters())
            .results()
            .apply(Window.into(new GlobalWindows()))
            .apply(Count.globally());
    PAssert.thatSingleton(results).isEqualTo((long) keys);
    PipelineResult run = p.run();
    run.waitUntilFinish();
    assertEquals(0, TieringMetrics.counter(run, TieringMetrics.GATE_KEYS_HOLDING_STATE));
    assertEquals(0, TieringMetrics.counter(run, TieringMetrics.WINDOWS_HOLDING_STATE));
  }
}
