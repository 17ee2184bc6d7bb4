package dev.eventide.pipelines;

import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;

/** Reads the counters of a finished pipeline for the command line's reports and benchmarks. */
public final class PipelineCounters {
  private PipelineCounters() {}

  /**
   * The sum of counter {@code namespace/name} over every step that reported it; attempted values,
   * because Flink does not report committed ones. 0 if no step reported it.
   *
   * @throws UnsupportedOperationException if the runner's result has no metrics
   */
  public static long sum(PipelineResult result, String namespace, String name) {
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
}
