package dev.eventide.trends.internal.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * The state of one query in one window instance of one partition: its running sums ({@link
 * Bucket}s) and what the current timestamp added, held back until time moves on because events with
 * equal timestamps are never adjacent in a trend. Only data: {@link QueryPlan} advances it.
 */
final class QueryWindow {
  /** Negated types seen in the window before {@link #pendingTime} (for a leading NOT). */
  long windowNegated;

  final List<Bucket> buckets = new ArrayList<>(2);

  /** The time of the pending additions; they join the buckets when a later event comes. */
  long pendingTime = Long.MIN_VALUE;

  /** Negated types seen at {@link #pendingTime}. */
  long pendingNegated;

  final List<Pending> pending = new ArrayList<>(2);

  /**
   * Bursts of the unit's shared type not applied to the sums yet, or null ({@link
   * QueryPlan#defer}).
   */
  DeferredBursts deferred;

  /** The prefixes in one state set cut by the same negated types, with their sums. */
  static final class Bucket {
    long negated;
    final QueryPlan.SetInfo info;
    final TrendSums total;

    /** Present when a transition out of the set carries NEXT predicates. */
    AdjacencyIndex index;

    Bucket(QueryPlan.SetInfo info, long negated, TrendSums total, AdjacencyIndex index) {
      this.info = info;
      this.negated = negated;
      this.total = total;
      this.index = index;
    }
  }

  /** Prefixes ending at the pending time, with the index key of their last event (or null). */
  record Pending(long set, TrendSums value, Object key) {}

  boolean hasPending() {
    return !pending.isEmpty() || pendingNegated != 0;
  }

  Bucket bucket(long set, long negated) {
    for (Bucket b : buckets) {
      if (b.info.set == set && b.negated == negated) {
        return b;
      }
    }
    return null;
  }
}
