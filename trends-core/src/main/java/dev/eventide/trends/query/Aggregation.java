package dev.eventide.trends.query;

/**
 * A query's RETURN clause. {@code type} is null for COUNT(*); {@code attribute} is null for COUNT.
 *
 * <pre>{@code
 * Aggregation returned = query.aggregation();       // RETURN ...
 * boolean countsTrends = returned.equals(Aggregation.countTrends());   // RETURN COUNT(*)
 * Aggregation.Kind kind = returned.kind();          // COUNT_TRENDS, COUNT_EVENTS, SUM, ...
 * }</pre>
 */
public record Aggregation(Kind kind, String type, String attribute)
    implements java.io.Serializable {

  /** The aggregation functions of HAMLET Definition 2. */
  public enum Kind {
    COUNT_TRENDS,
    COUNT_EVENTS,
    SUM,
    AVG,
    MIN,
    MAX
  }

  public static Aggregation countTrends() {
    return new Aggregation(Kind.COUNT_TRENDS, null, null);
  }

  @Override
  public String toString() {
    return switch (kind) {
      case COUNT_TRENDS -> "COUNT(*)";
      case COUNT_EVENTS -> "COUNT(" + type + ")";
      default -> kind + "(" + type + "." + attribute + ")";
    };
  }
}
