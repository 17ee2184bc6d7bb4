package dev.eventide.transforms.primitives;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.eventide.runtime.JobMetrics;
import dev.eventide.testing.runners.OnEachRunner;
import dev.eventide.testing.streams.EventTimeStream;
import dev.eventide.transforms.AggregateFlatMap;
import java.util.Collections;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.metrics.DistributionResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;

/** The operators' metrics count what they did, on a stream whose every event is known. */
class TransformMetricsTest {
  private static final Duration L = Duration.millis(100);

  @OnEachRunner(dev.eventide.testing.runners.TestRunner.DIRECT)
  void countLoopIterationsUnwrappedListsAndLateAndDroppedInputs(TestPipeline p) {
    // Each x becomes x copies of itself: lists of 3, 2, 3 on time, 4 late, and 5 dropped.
    EventTimeStream<Integer> s =
        EventTimeStream.of(VarIntCoder.of())
            .withWindowing(FixedWindows.of(WindowSpec.DELTA), L)
            .onTime(3, new Instant(5))
            .onTime(2, new Instant(5))
            .onTime(3, new Instant(7))
            .advanceWatermarkTo(new Instant(50))
            .lateWithinLateness(4, new Instant(10))
            .advanceWatermarkTo(new Instant(500))
            .lateBeyondLateness(5, new Instant(20));
    PCollection<Integer> out =
        p.apply(s.build())
            .apply(
                AggregateFlatMap.into(TypeDescriptors.integers())
                    .via((Integer x) -> Collections.nCopies(x, x))
                    .withAllowedLateness(L));
    PAssert.that(out).containsInAnyOrder(3, 3, 3, 2, 2, 3, 3, 3, 4, 4, 4, 4);
    PipelineResult result = p.run();
    result.waitUntilFinish();

    assertEquals(12, counter(result, TransformMetrics.LOOP_ITERATIONS), "one per output");
    assertEquals(1, counter(result, TransformMetrics.LATE_TUPLES), "the late 4");
    assertEquals(1, counter(result, TransformMetrics.DROPPED_TUPLES), "the 5 beyond lateness");
    DistributionResult sizes = distribution(result, TransformMetrics.UNWRAPPED_LIST_SIZE);
    assertEquals(4, sizes.getCount(), "lists unwrapped");
    assertEquals(4, sizes.getMax(), "the longest list");
    assertEquals(12, sizes.getSum(), "items unwrapped");
    assertEquals(
        0,
        counter(result, TransformMetrics.KEYS_HOLDING_STATE),
        "keys holding state once every tuple expired");
  }

  private static long counter(PipelineResult result, String name) {
    return JobMetrics.counter(result, TransformMetrics.NAMESPACE, name);
  }

  private static DistributionResult distribution(PipelineResult result, String name) {
    for (MetricResult<DistributionResult> d :
        result
            .metrics()
            .queryMetrics(
                MetricsFilter.builder()
                    .addNameFilter(MetricNameFilter.named(TransformMetrics.NAMESPACE, name))
                    .build())
            .getDistributions()) {
      return d.getAttempted();
    }
    throw new AssertionError("no distribution " + name);
  }
}
