package dev.eventide.tiering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.testing.runners.TestRunner;
import dev.eventide.testing.streams.GatedReplay;
import dev.eventide.testing.waits.Await;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.options.PipelineOptions;
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
import org.junit.jupiter.api.Test;
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

  private static final AtomicBoolean ALL_KEYS_HELD = new AtomicBoolean();
  private static final AtomicBoolean ALL_KEYS_CLEARED = new AtomicBoolean();

  /**
   * State ends while the stream goes on, not only when it ends: 500 keys' values, behind a gate
   * (dead letters); the stream held open until every key and window holds state; the watermark to
   * 100 s, past every window's end plus the lateness of 30 s, and the stream held open there (the
   * watermark far from the end of time) until no window nor gate key holds state and every block is
   * gone; then a new key's value, and the end. On the DirectRunner, which reports metrics while a
   * pipeline runs.
   */
  @Test
  void stateEndsWhileTheStreamGoesOn() throws Exception {
    ALL_KEYS_HELD.set(false);
    ALL_KEYS_CLEARED.set(false);
    int keys = 500;
    GatedReplay.Builder<KV<Integer, Long>> replay =
        GatedReplay.builder(KvCoder.of(VarIntCoder.of(), VarLongCoder.of()));
    for (int key = 0; key < keys; key++) {
      replay = replay.add(KV.of(key, 1L), new Instant(key * 10L));
    }
    replay =
        replay
            .holdUntil("every key and window holds state", () -> ALL_KEYS_HELD.get())
            .advanceWatermarkTo(new Instant(100_000))
            .holdUntil("no key nor window holds state", () -> ALL_KEYS_CLEARED.get())
            .add(KV.of(keys, 1L), new Instant(110_000));
    PipelineOptions options = TestRunner.DIRECT.options(1);
    options.as(DirectOptions.class).setBlockOnRun(false);
    Pipeline p = Pipeline.create(options);
    p.apply(replay.build())
        .apply(
            TieredWindow.of(FixedWindows.of(WINDOW), new TieredVsNative.Summary())
                .withAllowedLateness(WINDOW.multipliedBy(3))
                .withStore(store.toUri().toString())
                .withMemoryBucket(0, 1 << 20)
                .withDeadLetters());
    PipelineResult result = p.run();
    java.time.Duration limit = java.time.Duration.ofMinutes(3);
    Await.until(
        "windowsHoldingState at " + keys + " before the watermark moves",
        limit,
        () -> TieringMetrics.counter(result, TieringMetrics.WINDOWS_HOLDING_STATE),
        held -> held == keys);
    ALL_KEYS_HELD.set(true);
    Await.until(
        "no window, gate key, block or block directory held at watermark 100 s, with the stream still open",
        limit,
        () ->
            List.of(
                TieringMetrics.counter(result, TieringMetrics.WINDOWS_HOLDING_STATE),
                TieringMetrics.counter(result, TieringMetrics.GATE_KEYS_HOLDING_STATE),
                storeEntries()),
        held -> held.equals(List.of(0L, 0L, 0L)));
    assertEquals(PipelineResult.State.RUNNING, result.getState(), "the stream is still open");
    ALL_KEYS_CLEARED.set(true);
    result.waitUntilFinish();
    assertEquals(0, TieringMetrics.counter(result, TieringMetrics.WINDOWS_HOLDING_STATE));
    assertEquals(keys + 1L, TieringMetrics.counter(result, "onTimePanes"), "one per key");
  }

  /** Blocks and owner directories in the store, counted while purges delete them. */
  private long storeEntries() throws java.io.IOException {
    long[] entries = {0};
    Files.walkFileTree(
        store,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
            entries[0] += dir.equals(store) ? 0 : 1;
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
            entries[0]++;
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, java.io.IOException e) {
            return FileVisitResult.CONTINUE; // deleted while counted
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, java.io.IOException e) {
            return FileVisitResult.CONTINUE;
          }
        });
    return entries[0];
  }
}
