package dev.eventide.transforms.primitives;

import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Distribution;
import org.apache.beam.sdk.metrics.Metrics;

/**
 * The operators' Beam metrics, in namespace {@value #NAMESPACE}: read them from a {@code
 * PipelineResult} or a runner's UI.
 *
 * <pre>{@code
 * PipelineResult result = pipeline.run();
 * result.waitUntilFinish();
 * long dropped =
 *     JobMetrics.counter(result, TransformMetrics.NAMESPACE, TransformMetrics.DROPPED_TUPLES);
 * }</pre>
 *
 * <ul>
 *   <li>{@value #LOOP_ITERATIONS}: f_O calls of {@link Loop} on its own outputs (for X, one per
 *       unwrapped tuple).
 *   <li>{@value #UNWRAPPED_LIST_SIZE}: a distribution of the sizes of the embedded lists X unwraps
 *       (its max is the longest).
 *   <li>{@value #LATE_TUPLES}: input tuples that arrived after the watermark had passed their
 *       timestamp and were still processed, within the allowed lateness (counted by an operator's
 *       first step: E_FM for Filter, Map and FlatMap, the wrappers A1 and A2 for the join).
 *   <li>{@value #DROPPED_TUPLES}: input tuples dropped as late beyond the allowed lateness (the
 *       same steps).
 *   <li>{@value #KEYS_HOLDING_STATE}: state held per key (a tuple and its timestamp) in the
 *       stateful steps ({@link Loop}, the tuple-keyed Aggregates), counted per kind it keeps
 *       (on-time copies, late loops) so that no firing reads a cell only to count it: raised when
 *       created, lowered when cleared; 0 once the watermark has passed every tuple's timestamp plus
 *       the allowed lateness.
 * </ul>
 *
 * <p>Counters sum over every step that reports them; Beam's metric results also name the step.
 */
public final class TransformMetrics {
  /** The namespace of every operator metric. */
  public static final String NAMESPACE = "eventide.transforms";

  public static final String LOOP_ITERATIONS = "loopIterations";
  public static final String UNWRAPPED_LIST_SIZE = "unwrappedListSize";
  public static final String LATE_TUPLES = "lateTuplesProcessed";
  public static final String DROPPED_TUPLES = "tuplesDroppedBeyondLateness";
  public static final String KEYS_HOLDING_STATE = "keysHoldingState";

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

  static Counter droppedTuples() {
    return Metrics.counter(NAMESPACE, DROPPED_TUPLES);
  }

  static Counter keysHoldingState() {
    return Metrics.counter(NAMESPACE, KEYS_HOLDING_STATE);
  }
}
