package dev.eventide.transforms;

import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Distribution;
import org.apache.beam.sdk.metrics.Metrics;

/**
 * The operators' Beam metrics, in namespace {@value #NAMESPACE}: read them from a {@code
 * PipelineResult} or a runner's UI.
 *
 * <ul>
 *   <li>{@value #LOOP_ITERATIONS}: f_O calls of {@link Loop} on its own outputs (for X, one per
 *       unwrapped tuple).
 *   <li>{@value #UNWRAPPED_LIST_SIZE}: a distribution of the sizes of the embedded lists X unwraps
 *       (its max is the longest).
 *   <li>{@value #LATE_TUPLES}: late copies the loop processed (for X, the late outputs of E that
 *       arrived within the allowed lateness and were unwrapped).
 * </ul>
 *
 * <p>Tuples late beyond the allowed lateness are dropped by the operators' first {@code
 * GroupByKey}, which counts them in Beam's own counter {@code droppedDueToLateness} of that step.
 */
public final class TransformMetrics {
  /** The namespace of every operator metric. */
  public static final String NAMESPACE = "eventide.transforms";

  public static final String LOOP_ITERATIONS = "loopIterations";
  public static final String UNWRAPPED_LIST_SIZE = "unwrappedListSize";
  public static final String LATE_TUPLES = "lateTuplesProcessed";

  private TransformMetrics() {}

  static Counter loopIterations() {
    return Metrics.counter(NAMESPACE, LOOP_ITERATIONS);
  }

  static Distribution unwrappedListSize() {
    return Metrics.distribution(NAMESPACE, UNWRAPPED_LIST_SIZE);
  }

  static Counter lateTuples() {
    return Metrics.counter(NAMESPACE, LATE_TUPLES);
  }
}
