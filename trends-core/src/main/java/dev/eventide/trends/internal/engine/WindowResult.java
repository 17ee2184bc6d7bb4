package dev.eventide.trends.internal.engine;

import dev.eventide.trends.TrendResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The exact aggregate of one query over the trends of one window in one partition. A GROUPBY group
 * may span several partitions (when the query also has equivalence attributes): {@link #combine}
 * merges theirs, and {@link #toTrendResult()} gives the group's result. Immutable.
 */
public final class WindowResult {
  private final QueryPlan query;
  private final List<Object> group;
  private final long windowStart;
  private final long windowEnd;
  private final TrendSums sums;

  WindowResult(
      QueryPlan query, List<Object> group, long windowStart, long windowEnd, TrendSums sums) {
    this.query = query;
    this.group = List.copyOf(group);
    this.windowStart = windowStart;
    this.windowEnd = windowEnd;
    this.sums = sums;
  }

  public String query() {
    return query.name();
  }

  /** The position of the query in its workload. */
  public int queryIndex() {
    return query.compiled.index;
  }

  /** The GROUPBY values, in GROUPBY order. */
  public List<Object> group() {
    return group;
  }

  public long windowStart() {
    return windowStart;
  }

  public long windowEnd() {
    return windowEnd;
  }

  /**
   * Returns the aggregate over the trends of both, which must be of the same query, window and
   * group (from different partitions).
   */
  public WindowResult combine(WindowResult other) {
    if (other.query != query
        || other.windowStart != windowStart
        || other.windowEnd != windowEnd
        || !other.group.equals(group)) {
      throw new IllegalArgumentException("cannot combine " + this + " with " + other);
    }
    TrendSums merged = sums.copy();
    merged.add(other.sums);
    return new WindowResult(query, group, windowStart, windowEnd, merged);
  }

  /** The GROUPBY values by attribute name, in GROUPBY order. */
  public Map<String, Object> namedGroup() {
    Map<String, Object> named = new LinkedHashMap<>();
    List<String> groupBy = query.compiled.query.groupBy();
    for (int i = 0; i < groupBy.size(); i++) {
      named.put(groupBy.get(i), group.get(i));
    }
    return named;
  }

  /** The result in the results format: exact value, GROUPBY attributes by name. */
  public TrendResult toTrendResult() {
    return new TrendResult(query.name(), namedGroup(), windowStart, windowEnd, value());
  }

  private String value() {
    return WindowedEngine.format(query.compiled, sums);
  }

  @Override
  public String toString() {
    return query.name() + group + "[" + windowStart + ", " + windowEnd + "): " + sums;
  }
}
