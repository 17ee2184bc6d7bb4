package dev.eventide.tiering;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.generators.LateEventGenerator;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.tiering.TieredVsNative.Variant;
import java.util.List;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.SlidingWindows;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.values.KV;
import org.joda.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The staleness trigger changes when late panes fire, not what they hold: on seeded log-normal late
 * streams, with staleness bounds of 0.05 and 0.2, each key and window has Beam's final result and
 * on-time pane and well-formed panes, and the trigger fires fewer late panes than firing at every
 * watermark advance (a looser bound no more than a tighter one).
 */
class StalenessTriggerDifferentialTest {
  private static final Duration WINDOW = Duration.standardSeconds(10);

  static LongStream directSeeds() {
    return LongStream.rangeClosed(1, 4);
  }

  static LongStream flinkSeeds() {
    return LongStream.rangeClosed(101, 101);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("directSeeds")
  void sameResultsFewerLatePanesOnTheDirectRunner(long seed) {
    run(TestRunner.DIRECT, seed);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("flinkSeeds")
  void sameResultsFewerLatePanesOnEmbeddedFlink(long seed) {
    run(TestRunner.FLINK, seed);
  }

  private static void run(TestRunner runner, long seed) {
    WindowFn<Object, ?> windows =
        seed % 2 == 0
            ? SlidingWindows.of(WINDOW).every(Duration.standardSeconds(5))
            : FixedWindows.of(WINDOW);
    LateEventGenerator events = TieredVsNative.stream(seed, 0.5);
    List<Variant> variants =
        List.of(
            new Variant("every-advance", 3, 1 << 20, 0, true, false),
            new Variant("bound-0.2", 3, 1 << 20, 0, true, false, 0.2),
            new Variant("bound-0.05", 3, 1 << 20, 0, true, false, 0.05));
    Pipeline p = Pipeline.create(TieredVsNative.options(runner));
    PAssert.that(
            TieredVsNative.compare(
                p,
                TieredVsNative.read(p, runner, events),
                windows,
                WINDOW.multipliedBy(4),
                variants,
                "memory:" + UUID.randomUUID(),
                runner.honorsTestStreamWatermarks()))
        .satisfies(
            observations -> {
              long everyAdvance = latePanes(observations, "every-advance");
              long loose = latePanes(observations, "bound-0.2");
              long tight = latePanes(observations, "bound-0.05");
              assertTrue(
                  loose <= tight && tight < everyAdvance,
                  "late panes: bound 0.2 "
                      + loose
                      + ", bound 0.05 "
                      + tight
                      + ", every advance "
                      + everyAdvance);
              return null;
            });
    p.run().waitUntilFinish();
  }

  private static long latePanes(Iterable<KV<String, String>> observations, String source) {
    long n = 0;
    for (KV<String, String> o : observations) {
      if (o.getValue().startsWith(source + "|LATE|")) {
        n++;
      }
    }
    return n;
  }
}
