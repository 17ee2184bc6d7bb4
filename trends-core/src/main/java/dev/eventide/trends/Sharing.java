package dev.eventide.trends;

/**
 * How queries that may share a Kleene sub-pattern are evaluated: the HAMLET paper's choice, per
 * burst of events, between evaluating a class of queries together and each query alone.
 *
 * <pre>{@code
 * // TrendAggregate (eventide-trend-aggregation) shares dynamically unless told otherwise:
 * events.apply(TrendAggregate.of(workload).withSharing(Sharing.STATIC));
 * }</pre>
 */
public enum Sharing {
  /** Every query alone. */
  NONE,
  /** Bursts shared within classes of queries that accept the same events, always. */
  STATIC,
  /** Per burst and class, shared only when the benefit model says it pays. */
  DYNAMIC
}
