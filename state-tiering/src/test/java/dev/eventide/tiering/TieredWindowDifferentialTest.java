package dev.eventide.tiering;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.generators.LateEventGenerator;
import dev.eventide.testing.runners.TestRunner;
import java.nio.file.Path;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.SlidingWindows;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.joda.time.Duration;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link TieredWindow} against Beam's {@code Window...withAllowedLateness(L)
 * .accumulatingFiredPanes()} + {@code GroupByKey} on seeded log-normal late streams: tumbling and
 * sliding windows, allowed lateness from one to four windows, memory buckets from nothing to
 * everything, local-disk and in-memory stores; in odd seeds a third of one key's values are null.
 */
class TieredWindowDifferentialTest {
  private static final Duration WINDOW = Duration.standardSeconds(10);

  @TempDir Path blocks;

  static LongStream directSeeds() {
    return LongStream.rangeClosed(1, 24);
  }

  static LongStream flinkSeeds() {
    return LongStream.rangeClosed(101, 104);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("directSeeds")
  void sameOnTimeAndFinalResultsAsNativeOnTheDirectRunner(long seed) {
    run(TestRunner.DIRECT, seed);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("flinkSeeds")
  void sameOnTimeAndFinalResultsAsNativeOnEmbeddedFlink(long seed) {
    run(TestRunner.FLINK, seed);
  }

  /**
   * "Never drop": an allowed lateness that reaches the end of Beam's time, which Beam's windowing
   * accepts by clamping a window's expiry to the end of the global window.
   */
  private static final Duration UNTIL_THE_END_OF_TIME =
      Duration.millis(BoundedWindow.TIMESTAMP_MAX_VALUE.getMillis());

  @ParameterizedTest(name = "{0}")
  @EnumSource(TestRunner.class)
  void aLatenessUntilTheEndOfTimeGivesNativeResults(TestRunner runner) {
    run(runner, runner == TestRunner.DIRECT ? 25 : 105, UNTIL_THE_END_OF_TIME);
  }

  private void run(TestRunner runner, long seed) {
    run(runner, seed, WINDOW.multipliedBy(1 + seed % 4));
  }

  private void run(TestRunner runner, long seed, Duration lateness) {
    boolean sliding = seed % 2 == 0;
    WindowFn<Object, ?> windows =
        sliding
            ? SlidingWindows.of(WINDOW).every(Duration.standardSeconds(5))
            : FixedWindows.of(WINDOW);
    String store = seed % 3 == 0 ? blocks.toUri().toString() : "memory:" + UUID.randomUUID();
    LateEventGenerator events = TieredVsNative.stream(seed, 0.2 + (seed % 5) / 10.0);

    Pipeline p = Pipeline.create(TieredVsNative.options(runner));
    TieredVsNative.compare(
        p,
        TieredVsNative.read(p, runner, events, seed % 2 == 1),
        windows,
        lateness,
        TieredVsNative.VARIANTS,
        store,
        runner.honorsTestStreamWatermarks());
    PipelineResult result = p.run();
    result.waitUntilFinish();

    // Late events are late on both runners (a gated replay on Flink), whatever the machine's load.
    assertTrue(TieringMetrics.counter(result, "latePanes") > 0, "some panes fired late");
    assertTrue(TieringMetrics.counter(result, "blocksWritten") > 0, "some blocks were written");
    assertTrue(TieringMetrics.counter(result, "bytesStaged") > 0, "some blocks were read back");
  }
}
