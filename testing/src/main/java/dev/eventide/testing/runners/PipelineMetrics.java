package dev.eventide.testing.runners;

import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;

/** Reads the counters of a finished pipeline, for tests and benchmarks. */
public final class PipelineMetrics {
  private PipelineMetrics() {}

  /**
   * The sum of counter {@code namespace/name} over every step that reported it; attempted values,
   * because Flink does not report committed ones. 0 if no step reported it.
   */
  public static long counter(PipelineResult result, String namespace, String name) {
    long sum = 0;
    for (MetricResult<Long> counter :
        result
            .metrics()
            .queryMetrics(
                MetricsFilter.builder()
                    .addNameFilter(MetricNameFilter.named(namespace, name))
                    .build())
            .getCounters()) {
      sum += counter.getAttempted();
    }
    return sum;
  }

  /**
   * How many elements Beam's windowed {@code GroupByKey} dropped as too late for their window,
   * summed over every grouping step: the DirectRunner counts them as {@code DroppedDueToLateness}
   * (its {@code GroupAlsoByWindowEvaluatorFactory}), the Flink runner as {@code
   * droppedDueToLateness} (runners-core {@code LateDataDroppingDoFnRunner}); 0 if none did.
   */
  public static long droppedDueToLateness(PipelineResult result) {
    long sum = 0;
    for (MetricResult<Long> counter :
        result.metrics().queryMetrics(MetricsFilter.builder().build()).getCounters()) {
      if (counter.getName().getName().equalsIgnoreCase("droppedDueToLateness")) {
        sum += counter.getAttempted();
      }
    }
    return sum;
  }
}
