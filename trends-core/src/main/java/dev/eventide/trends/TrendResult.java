package dev.eventide.trends;

import java.util.Map;

/**
 * The aggregate of one query over the trends of one window and one group. {@code value} is exact:
 * integers as decimal strings, sums as plain decimals, AVG to 34 significant digits; null for AVG,
 * MIN and MAX when no trend holds an event of the aggregated type.
 *
 * <pre>{@code
 * for (TrendResult r : Engines.HAMLET.evaluate(workload, events)) {
 *   System.out.println(r.query() + " " + r.group() + " [" + r.windowStart() + ", " + r.windowEnd()
 *       + "): " + r.value());
 * }
 * }</pre>
 *
 * @param group each GROUPBY attribute's value (a {@link java.math.BigDecimal} or a String), in
 *     GROUPBY order; empty without GROUPBY
 * @param windowEnd exclusive
 */
public record TrendResult(
    String query, Map<String, Object> group, long windowStart, long windowEnd, String value)
    implements java.io.Serializable {

  public TrendResult {
    group = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(group));
  }
}
