package dev.eventide.trends.internal.engine;

import dev.eventide.trends.Event;
import dev.eventide.trends.query.Predicate;
import dev.eventide.trends.query.Query;
import dev.eventide.trends.query.QueryException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A query with its automaton and its predicates indexed by type, ready for the engines. */
public final class CompiledQuery {
  final Query query;
  final int index;
  final TrendAutomaton automaton;
  final Set<String> types;

  /** The aggregate components its RETURN clause needs. */
  final TrendSums.Shape shape;

  /** GROUPBY attributes, then equivalence attributes not among them. */
  final List<String> partitionAttributes;

  private final Map<String, Predicate.OnEvent[]> eventPredicates = new HashMap<>();
  private final Map<String, Predicate.OnAdjacent[]> adjacentPredicates = new HashMap<>();
  private final Map<String, Long> statesOf = new HashMap<>();
  private final Map<String, Long> negatedBits = new HashMap<>();
  private final int[][] targets;
  private final List<Constraint>[][] alternatives;
  private final long statesWithPredecessors;

  CompiledQuery(Query query, int index) {
    this.query = query;
    this.index = index;
    try {
      this.automaton = TrendAutomaton.of(query.pattern());
    } catch (IllegalArgumentException e) {
      throw new QueryException(
          query.line(), query.column(), "query " + query.name() + ": " + e.getMessage());
    }
    this.types = query.types();
    this.shape = TrendSums.Shape.of(query.aggregation().kind());
    Set<String> partition = new LinkedHashSet<>(query.groupBy());
    partition.addAll(query.equivalence());
    this.partitionAttributes = List.copyOf(partition);
    for (String type : types) {
      eventPredicates.put(type, query.eventPredicates(type).toArray(Predicate.OnEvent[]::new));
      adjacentPredicates.put(
          type, query.adjacentPredicates(type).toArray(Predicate.OnAdjacent[]::new));
      statesOf.put(type, automaton.statesOf(type));
      int bit = automaton.negatedTypes().indexOf(type);
      negatedBits.put(type, bit < 0 ? 0L : 1L << bit);
    }
    int n = automaton.size();
    this.targets = new int[n][];
    @SuppressWarnings("unchecked")
    List<Constraint>[][] alternatives = new List[n][];
    for (int s = 0; s < n; s++) {
      Map<Integer, List<Constraint>> out = automaton.edges(s);
      targets[s] = out.keySet().stream().mapToInt(Integer::intValue).sorted().toArray();
      alternatives[s] = new List[targets[s].length];
      for (int k = 0; k < targets[s].length; k++) {
        alternatives[s][k] = withoutVacuousRuns(out.get(targets[s][k]), targets[s][k]);
      }
    }
    this.alternatives = alternatives;
    long entered = 0;
    for (int[] to : targets) {
      for (int t : to) {
        entered |= 1L << t;
      }
    }
    this.statesWithPredecessors = entered;
  }

  /** The states some transition enters: an event in no such state has no predecessor. */
  long statesWithPredecessors() {
    return statesWithPredecessors;
  }

  /**
   * A Kleene run's adjacency requirement holds trivially when the query has no {@code NEXT}
   * predicate on the type: dropping it lets such edges count as unconstrained.
   */
  private List<Constraint> withoutVacuousRuns(List<Constraint> alternatives, int target) {
    if (hasAdjacentPredicates(automaton.label(target))) {
      return alternatives;
    }
    return Constraint.simplify(
        alternatives.stream().map(c -> new Constraint(c.notMask(), false)).toList());
  }

  /** The states reachable in one transition from the state, in increasing order. */
  int[] targets(int from) {
    return targets[from];
  }

  /** The constraint alternatives of each transition of {@link #targets(int)}. */
  List<Constraint>[] alternatives(int from) {
    return alternatives[from];
  }

  public static List<CompiledQuery> compile(List<Query> queries) {
    List<CompiledQuery> compiled = new ArrayList<>();
    for (Query q : queries) {
      compiled.add(new CompiledQuery(q, compiled.size()));
    }
    return compiled;
  }

  /** Whether the event is of one of the query's types and satisfies its predicates on that type. */
  boolean matches(Event e) {
    Predicate.OnEvent[] predicates = eventPredicates.get(e.type());
    if (predicates == null) {
      return false;
    }
    for (Predicate.OnEvent p : predicates) {
      if (!p.op().test(e.attribute(p.attribute()), p.constant())) {
        return false;
      }
    }
    return true;
  }

  /** The {@code E.a op const} predicates on the type, which decide whether it matches an event. */
  List<Predicate.OnEvent> eventPredicates(String type) {
    Predicate.OnEvent[] predicates = eventPredicates.get(type);
    return predicates == null ? List.of() : List.of(predicates);
  }

  boolean adjacentHolds(Event earlier, Event later) {
    for (Predicate.OnAdjacent p : adjacentPredicates.get(later.type())) {
      if (!p.op().test(earlier.attribute(p.attribute()), later.attribute(p.nextAttribute()))) {
        return false;
      }
    }
    return true;
  }

  /** The {@code E.a op NEXT(E).b} predicates on the type (empty if none). */
  Predicate.OnAdjacent[] adjacentPredicates(String type) {
    return adjacentPredicates.getOrDefault(type, new Predicate.OnAdjacent[0]);
  }

  boolean hasAdjacentPredicates(String type) {
    Predicate.OnAdjacent[] predicates = adjacentPredicates.get(type);
    return predicates != null && predicates.length > 0;
  }

  /** The automaton states labelled with the type, as a bit mask (0 if none). */
  long statesOf(String type) {
    return statesOf.getOrDefault(type, 0L);
  }

  /** The bit of the type among the negated types (0 if it is not negated). */
  long negatedBit(String type) {
    return negatedBits.getOrDefault(type, 0L);
  }

  /** Whether events of this type feed the aggregate (X of COUNT(X), SUM(X.a), ...). */
  boolean isAggregated(String type) {
    return type.equals(query.aggregation().type());
  }

  /** The aggregated attribute's value of an event of the aggregated type, or null for COUNT. */
  BigDecimal aggregatedValue(Event e) {
    String attribute = query.aggregation().attribute();
    return attribute == null ? null : (BigDecimal) e.attribute(attribute);
  }

  /** Extends the aggregates of trend prefixes by an event, if it is of the aggregated type. */
  void extend(TrendSums sums, Event e) {
    if (isAggregated(e.type())) {
      BigDecimal value = aggregatedValue(e);
      sums.extend(value, shape.sum() ? ExactDecimal.of(value) : null);
    }
  }
}
