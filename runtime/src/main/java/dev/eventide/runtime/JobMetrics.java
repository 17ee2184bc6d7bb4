package dev.eventide.runtime;

import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.DistributionResult;
import org.apache.beam.sdk.metrics.MetricNameFilter;
import org.apache.beam.sdk.metrics.MetricQueryResults;
import org.apache.beam.sdk.metrics.MetricResult;
import org.apache.beam.sdk.metrics.MetricsFilter;

/**
 * Reads the metrics of a Beam job, summed over every step that reported them. Values are the
 * attempted ones: the Flink runner does not report committed values.
 *
 * <pre>{@code
 * PipelineResult result = pipeline.run();
 * result.waitUntilFinish();
 * long windows = JobMetrics.counter(result, "eventide.tiering", "windowsHoldingState");
 * long dropped = JobMetrics.droppedDueToLateness(result);
 * }</pre>
 *
 * <p>Each method throws {@link UnsupportedOperationException} if the runner's result carries no
 * metrics.
 */
public final class JobMetrics {
  private JobMetrics() {}

  /** The sum of counter {@code namespace/name} over every step; 0 if no step reported it. */
  public static long counter(PipelineResult result, String namespace, String name) {
    long sum = 0;
    for (MetricResult<Long> counter : query(result, namespace, name).getCounters()) {
      sum += counter.getAttempted();
    }
    return sum;
  }

  /**
   * The sum of counter {@code namespace/name} over the steps under {@code step}: a step's name, or
   * a run of names in its path ({@code "Join"} matches {@code "Soak/Join/A1 (wrap left)"}), as
   * Beam's {@code MetricsFilter} matches steps; 0 if none reported it. Tells apart two steps that
   * report the same counter.
   *
   * <pre>{@code
   * PipelineResult result = pipeline.run();
   * result.waitUntilFinish();
   * long filterKeys =
   *     JobMetrics.counter(result, "Filter", "eventide.transforms", "keysHoldingState");
   * }</pre>
   */
  public static long counter(PipelineResult result, String step, String namespace, String name) {
    long sum = 0;
    MetricsFilter filter =
        MetricsFilter.builder()
            .addNameFilter(MetricNameFilter.named(namespace, name))
            .addStep(step)
            .build();
    for (MetricResult<Long> counter : result.metrics().queryMetrics(filter).getCounters()) {
      sum += counter.getAttempted();
    }
    return sum;
  }

  /**
   * The mean of distribution {@code namespace/name} over every step; 0 if no value was recorded.
   */
  public static double mean(PipelineResult result, String namespace, String name) {
    long sum = 0;
    long count = 0;
    for (MetricResult<DistributionResult> d : query(result, namespace, name).getDistributions()) {
      sum += d.getAttempted().getSum();
      count += d.getAttempted().getCount();
    }
    return count == 0 ? 0 : (double) sum / count;
  }

  /**
   * How many elements Beam's windowed {@code GroupByKey} dropped as too late for their window,
   * summed over every grouping step; 0 if none did. The runners count them under different names:
   * the DirectRunner as {@code DroppedDueToLateness} (its {@code
   * GroupAlsoByWindowEvaluatorFactory}), the Flink runner as {@code droppedDueToLateness}
   * (runners-core {@code LateDataDroppingDoFnRunner}).
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

  private static MetricQueryResults query(PipelineResult result, String namespace, String name) {
    return result
        .metrics()
        .queryMetrics(
            MetricsFilter.builder().addNameFilter(MetricNameFilter.named(namespace, name)).build());
  }
}
