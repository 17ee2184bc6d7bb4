package dev.eventide.trends.engine;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * The trend aggregates carried by one node of a trend graph, or summed over many: the number of
 * trends {@code count}, and for the query's aggregated type X the number of X events over those
 * trends {@code events}, the sum of the attribute over them {@code sum}, and the smallest and
 * largest attribute value among them. Exact: counts are unbounded integers, sums exact decimals.
 * Mutable, for accumulation.
 */
final class Agg {
  BigInteger count = BigInteger.ZERO;
  BigInteger events = BigInteger.ZERO;
  BigDecimal sum = BigDecimal.ZERO;
  BigDecimal min;
  BigDecimal max;

  boolean isEmpty() {
    return count.signum() == 0;
  }

  /** Adds the other's trends to these (both end at nodes of the same query). */
  void add(Agg other) {
    count = count.add(other.count);
    events = events.add(other.events);
    sum = sum.add(other.sum);
    if (other.min != null && (min == null || other.min.compareTo(min) < 0)) {
      min = other.min;
    }
    if (other.max != null && (max == null || other.max.compareTo(max) > 0)) {
      max = other.max;
    }
  }

  /** Extends every trend counted here by one more event of the aggregated type. */
  void extendByAggregated(BigDecimal value) {
    events = events.add(count);
    if (value != null) {
      sum = sum.add(value.multiply(new BigDecimal(count)));
      if (min == null || value.compareTo(min) < 0) {
        min = value;
      }
      if (max == null || value.compareTo(max) > 0) {
        max = value;
      }
    }
  }

  @Override
  public String toString() {
    return "count=" + count + " events=" + events + " sum=" + sum + " min=" + min + " max=" + max;
  }
}
