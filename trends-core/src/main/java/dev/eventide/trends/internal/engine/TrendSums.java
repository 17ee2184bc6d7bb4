package dev.eventide.trends.internal.engine;

import dev.eventide.trends.query.Aggregation;
import java.math.BigDecimal;

/**
 * The aggregates of a set of trend prefixes, as the incremental executor keeps them per running
 * sum: how many prefixes ({@code count}), and, when the query needs them, how many events of the
 * aggregated type they hold ({@code events}), the sum of its attribute over them ({@code sum}), and
 * its smallest and largest value among them. Mutable, for accumulation; exact (see {@link
 * ExactInt}). Components a query does not need are null and cost nothing.
 *
 * <p>MIN and MAX travel with the sums: the executor only ever adds sums of disjoint sets of
 * prefixes (a split by an index yields disjoint parts, never a difference), so the smallest value
 * of a union is the smallest of its parts, and the value of a window is known when it closes
 * without a backward pass over its events.
 */
final class TrendSums {
  /** Which components a query needs, from its RETURN clause. */
  record Shape(boolean events, boolean sum, boolean minMax) {
    static Shape of(Aggregation.Kind kind) {
      return new Shape(
          kind == Aggregation.Kind.COUNT_EVENTS || kind == Aggregation.Kind.AVG,
          kind == Aggregation.Kind.SUM || kind == Aggregation.Kind.AVG,
          kind == Aggregation.Kind.MIN || kind == Aggregation.Kind.MAX);
    }
  }

  final ExactInt count;
  final ExactInt events;
  final ExactDecimal sum;
  BigDecimal min;
  BigDecimal max;
  private final boolean minMax;

  private TrendSums(ExactInt count, ExactInt events, ExactDecimal sum, boolean minMax) {
    this.count = count;
    this.events = events;
    this.sum = sum;
    this.minMax = minMax;
  }

  static TrendSums empty(Shape shape) {
    return new TrendSums(
        new ExactInt(),
        shape.events() ? new ExactInt() : null,
        shape.sum() ? new ExactDecimal() : null,
        shape.minMax());
  }

  /** One trend prefix with no event of the aggregated type yet. */
  static TrendSums one(Shape shape) {
    TrendSums s = empty(shape);
    s.count.add(1);
    return s;
  }

  Shape shape() {
    return new Shape(events != null, sum != null, minMax);
  }

  TrendSums copy() {
    TrendSums c =
        new TrendSums(
            count.copy(),
            events == null ? null : events.copy(),
            sum == null ? null : sum.copy(),
            minMax);
    c.min = min;
    c.max = max;
    return c;
  }

  boolean isEmpty() {
    return count.signum() == 0;
  }

  void add(TrendSums o) {
    count.add(o.count);
    if (events != null) {
      events.add(o.events);
    }
    if (sum != null) {
      sum.add(o.sum);
    }
    if (minMax) {
      if (o.min != null && (min == null || o.min.compareTo(min) < 0)) {
        min = o.min;
      }
      if (o.max != null && (max == null || o.max.compareTo(max) > 0)) {
        max = o.max;
      }
    }
  }

  /**
   * Extends every prefix counted here by one event of the aggregated type whose attribute is {@code
   * value} (null for COUNT), given exactly as {@code exact} when the sum needs it.
   */
  void extend(BigDecimal value, ExactDecimal exact) {
    if (events != null) {
      events.add(count);
    }
    if (sum != null) {
      sum.addProduct(exact, count);
    }
    if (minMax && value != null) {
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
