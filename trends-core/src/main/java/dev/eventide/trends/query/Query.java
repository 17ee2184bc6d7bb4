package dev.eventide.trends.query;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * One event trend aggregation query (HAMLET Definition 2): RETURN, PATTERN, WHERE, GROUPBY and a
 * sliding window of {@code within} milliseconds advancing by {@code slide}. Windows are {@code
 * [k·slide, k·slide + within)}.
 *
 * <pre>{@code
 * Query trips = Workload.parse(text).queries().get(0);
 * trips.name();      // "pool_trips"
 * trips.types();     // the event types its pattern reads
 * trips.within();    // WITHIN in milliseconds; slide() is SLIDE
 * trips.groupBy();   // the GROUPBY attributes
 * }</pre>
 *
 * @param line the line of the file where the query starts, for messages
 * @param column the column where it starts
 */
public record Query(
    String name,
    Aggregation aggregation,
    Pattern pattern,
    List<String> equivalence,
    List<Predicate> predicates,
    List<String> groupBy,
    long within,
    long slide,
    int line,
    int column)
    implements java.io.Serializable {

  public Query {
    equivalence = List.copyOf(equivalence);
    predicates = List.copyOf(predicates);
    groupBy = List.copyOf(groupBy);
  }

  /** Every event type the query reads: those of trends and those under NOT. */
  public Set<String> types() {
    Set<String> types = new TreeSet<>(pattern.positiveTypes());
    types.addAll(pattern.negatedTypes());
    return types;
  }

  /** The predicates {@code E.a op const} on the given type. */
  public List<Predicate.OnEvent> eventPredicates(String type) {
    return predicates.stream()
        .filter(p -> p instanceof Predicate.OnEvent && p.type().equals(type))
        .map(p -> (Predicate.OnEvent) p)
        .toList();
  }

  /** The predicates {@code E.a op NEXT(E).b} on the given type. */
  public List<Predicate.OnAdjacent> adjacentPredicates(String type) {
    return predicates.stream()
        .filter(p -> p instanceof Predicate.OnAdjacent && p.type().equals(type))
        .map(p -> (Predicate.OnAdjacent) p)
        .toList();
  }
}
