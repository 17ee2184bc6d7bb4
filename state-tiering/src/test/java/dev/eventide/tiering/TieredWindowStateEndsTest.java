package dev.eventide.tiering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.testing.runners.TestRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Keys that come and go: many distinct keys, each with a few values in one window. Every piece of
 * state {@link TieredWindow} writes ends with a timer at its window's expiry (the gate's with the
 * key's last window): once the input ends every key's state has been cleared, its blocks included,
 * and the count of keys holding state is back to zero. Nothing is left to be cleared by the runner
 * at the end of the global window.
 */
class TieredWindowStateEndsTest {
  private static final Duration WINDOW = Duration.standardSeconds(10);

  @TempDir Path store;

  @ParameterizedTest(name = "{0}")
  @EnumSource(TestRunner.class)
  void everyKeysStateEndsAndItsBlocksGo(TestRunner runner) throws Exception {
    // The DirectRunner fires each key's timers in a bundle of its own: fewer keys there.
    int keys = runner == TestRunner.FLINK ? 100_000 : 2_000;
    List<TimestampedValue<KV<Integer, Long>>> values = new ArrayList<>();
    for (int key = 0; key < keys; key++) {
      long at = (key % 1_000) * 100L; // keys spread over 100 s of event time, ten windows
      for (long v = 0; v < 3; v++) {
        values.add(TimestampedValue.of(KV.of(key, v), new Instant(at + v)));
      }
    }
    // Local files on the DirectRunner; on Flink the heap store, or the test would time a disk's
    // fsyncs (three blocks per key).
    String blocks =
        runner == TestRunner.FLINK ? "memory:" + UUID.randomUUID() : store.toUri().toString();
    Pipeline p = Pipeline.create(runner.options(2));
    PCollection<KV<Integer, Long>> input =
        p.apply(
            Create.timestamped(values).withCoder(KvCoder.of(VarIntCoder.of(), VarLongCoder.of())));
    TieredWindow<Integer, Long, String> window =
        TieredWindow.of(FixedWindows.of(WINDOW), new TieredVsNative.Summary())
            .withAllowedLateness(WINDOW.multipliedBy(3));
    PCollection<KV<Integer, String>> plain =
        input.apply(
            "Plain",
            window
                .withStore(blocks)
                // Every value in a block by the on-time pane; purged at once (a delayed purge
                // outlives a bounded job: TieredIoTest shows its record is performed later).
                .withMemoryBucket(1, 1 << 20));
    PCollection<KV<Integer, String>> gated =
        input
            .apply(
                "Gated",
                window
                    .withStore("memory:" + UUID.randomUUID())
                    .withPredictiveCleanup(0.99, 0.95)
                    .withDeadLetters())
            .results();
    for (PCollection<KV<Integer, String>> results : List.of(plain, gated)) {
      PAssert.thatSingleton(
              results
                  .apply(results.getName() + " global", Window.into(new GlobalWindows()))
                  .apply(results.getName() + " count", Count.globally()))
          .isEqualTo((long) keys);
    }
    PipelineResult result = p.run();
    result.waitUntilFinish();

    assertEquals(0, TieringMetrics.counter(result, TieringMetrics.WINDOWS_HOLDING_STATE));
    long written = TieringMetrics.counter(result, "blocksWritten");
    assertTrue(written >= 2L * keys, "blocks written: " + written);
    assertEquals(written, TieringMetrics.counter(result, "blocksPurged"));
    try (Stream<Path> files = Files.walk(store)) {
      assertEquals(0, files.filter(f -> f.toString().endsWith(".blk")).count(), "blocks left");
    }
  }
}
