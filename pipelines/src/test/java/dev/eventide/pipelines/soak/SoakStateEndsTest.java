package dev.eventide.pipelines.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LatenessDistribution;
import dev.eventide.runtime.JobMetrics;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.tiering.TieringMetrics;
import dev.eventide.transforms.primitives.TransformMetrics;
import dev.eventide.trends.beam.TrendMetrics;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.joda.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A key seen once must not cost memory for ever: over 100,000 distinct keys on embedded Flink, a
 * generation of 1,000 every half hour of event time (over 500 on the DirectRunner), each seen about
 * three times, some of its values late (up to half an hour, within the hour of allowed lateness),
 * through the soak job's every stateful step. Once the input ends and the watermark has passed
 * everything, every step's gauge is back to 0, the blocks in the store included; the outputs show
 * that every step saw every value.
 */
class SoakStateEndsTest {
  @ParameterizedTest(name = "{0}")
  @EnumSource(TestRunner.class)
  void everyStepsStateEndsForKeysThatComeAndGo(TestRunner runner) throws Exception {
    // The DirectRunner fires each key's timers in a bundle of its own, several per key and step:
    // 200 times fewer keys there (2,000 took seven minutes; 10,000 over eight before they were
    // stopped), in generations of 100 keys every 3 minutes of event time, late by up to 2 minutes.
    boolean flink = runner == TestRunner.FLINK;
    int keys = flink ? 100_000 : 500;
    SoakConfig config =
        new SoakConfig(
            keys * 36L / 10,
            flink ? 1_000 : 100,
            Duration.standardMinutes(flink ? 30 : 3),
            Duration.standardMinutes(1),
            100,
            0.2,
            LatenessDistribution.uniform(0, flink ? 30 : 2),
            flink ? Duration.standardHours(1) : Duration.standardMinutes(6),
            // The heap store: local files would time the disk's fsyncs, several per key.
            "memory:" + UUID.randomUUID(),
            0,
            45);
    Set<String> seen = new HashSet<>();
    Set<String> keyWindows = new HashSet<>();
    long even = 0;
    long late = 0;
    for (LateEvent e : config.generator()) {
      String key = config.keyOf(e);
      seen.add(key);
      keyWindows.add(key + "@" + e.eventTime().getMillis() / config.window().getMillis());
      even += e.value() % 2 == 0 ? 1 : 0;
      late += e.isLate() ? 1 : 0;
    }
    assertTrue(seen.size() >= keys, "distinct keys: " + seen.size());
    assertTrue(late > config.events() / 10, "late events: " + late);

    Pipeline p = Pipeline.create(runner.options(2));
    SoakPipeline.addTo(p, config);
    PipelineResult result = p.run();
    result.waitUntilFinish();

    Map<String, Long> zero = new LinkedHashMap<>();
    SoakGauges.GAUGES.forEach(g -> zero.put(g.label(), 0L));
    SoakGauges.BLOCKS.forEach(g -> zero.put(g.label(), 0L));
    assertEquals(zero, SoakGauges.read(result), "state held at the end");

    assertEquals(config.events(), SoakGauges.events(result));
    // The gauges are read per step: each step's own counters are found under its name.
    assertEquals(
        config.events(),
        JobMetrics.counter(result, SoakPipeline.TREND_AGGREGATE, TrendMetrics.NAMESPACE, "events"));
    assertTrue(
        JobMetrics.counter(
                result, SoakPipeline.TIERED_WINDOW, TieringMetrics.NAMESPACE, "blocksWritten")
            > 0,
        "TieredWindow's blocks (all purged by the end)");
    for (String step : List.of(SoakPipeline.FILTER, SoakPipeline.JOIN)) {
      assertTrue(
          JobMetrics.counter(
                  result, step, TransformMetrics.NAMESPACE, TransformMetrics.LOOP_ITERATIONS)
              > 0,
          step + "'s loop iterations");
    }
    assertEquals(even, soak(result, "filtered"), "the filter's outputs: every even value");
    assertEquals(0, soak(result, "deadLetters"), "nothing is later than the allowed lateness");
    // At least one pane per key and window, more where late values came.
    assertTrue(soak(result, "windowCounts") >= keyWindows.size(), "TieredWindow's panes");
    assertTrue(soak(result, "trendResults") >= keyWindows.size(), "TrendAggregate's panes");
    // The join pairs what meets in one pane: a window's count comes after the window's values, on
    // time where TieredWindow's hold keeps the join's watermark back, late (and alone) where not.
    assertTrue(soak(result, "joined") > 0, "the join's pairs");
  }

  private static long soak(PipelineResult result, String counter) {
    return JobMetrics.counter(result, SoakPipeline.NAMESPACE, counter);
  }
}
