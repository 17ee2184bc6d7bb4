package dev.eventide.trends.internal.engine;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The HAMLET query template of a whole workload (Section 3.1, Figure 3(b)): each event type once,
 * and a transition from type E' to type E labelled with the set of queries in whose trends an E'
 * event may directly precede an E event. Built from the queries' automata, so it covers every
 * pattern form; start and end types are kept per query.
 */
public final class MergedTemplate {
  /** A transition between two event types. */
  public record Transition(String from, String to) {}

  private final Map<Transition, Set<String>> transitions = new LinkedHashMap<>();
  private final Map<String, Set<String>> startTypes = new LinkedHashMap<>();
  private final Map<String, Set<String>> endTypes = new LinkedHashMap<>();

  private MergedTemplate() {}

  static MergedTemplate of(List<CompiledQuery> queries) {
    MergedTemplate t = new MergedTemplate();
    for (CompiledQuery q : queries) {
      String name = q.query.name();
      TrendAutomaton a = q.automaton;
      Set<String> starts = new TreeSet<>();
      Set<String> ends = new TreeSet<>();
      for (int s = 0; s < a.size(); s++) {
        if (!a.start(s).isEmpty()) {
          starts.add(a.label(s));
        }
        if (!a.end(s).isEmpty()) {
          ends.add(a.label(s));
        }
        for (int to : a.edges(s).keySet()) {
          t.transitions
              .computeIfAbsent(new Transition(a.label(s), a.label(to)), k -> new TreeSet<>())
              .add(name);
        }
      }
      t.startTypes.put(name, Collections.unmodifiableSet(starts));
      t.endTypes.put(name, Collections.unmodifiableSet(ends));
    }
    return t;
  }

  /** Every transition with the queries that label it. */
  public Map<Transition, Set<String>> transitions() {
    return Collections.unmodifiableMap(transitions);
  }

  /** The queries labelling the transition (empty if there is none). */
  public Set<String> queriesOf(String from, String to) {
    return transitions.getOrDefault(new Transition(from, to), Set.of());
  }

  /** start(q): the types whose events may start a trend of the query. */
  public Set<String> startTypes(String query) {
    return startTypes.getOrDefault(query, Set.of());
  }

  /** end(q): the types whose events may end a trend of the query. */
  public Set<String> endTypes(String query) {
    return endTypes.getOrDefault(query, Set.of());
  }

  /** pt(E, q): the types whose events may directly precede an E event in a trend of q. */
  public Set<String> predecessorTypes(String type, String query) {
    Set<String> types = new TreeSet<>();
    transitions.forEach(
        (transition, queries) -> {
          if (transition.to().equals(type) && queries.contains(query)) {
            types.add(transition.from());
          }
        });
    return types;
  }

  /**
   * The Kleene sub-patterns shareable by more than one query (Definition 4): E to the queries
   * labelling the transition from E to E.
   */
  public Map<String, Set<String>> shareableKleene() {
    Map<String, Set<String>> shareable = new LinkedHashMap<>();
    transitions.forEach(
        (transition, queries) -> {
          if (transition.from().equals(transition.to()) && queries.size() > 1) {
            shareable.put(transition.from(), queries);
          }
        });
    return shareable;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    transitions.forEach(
        (t, queries) ->
            sb.append(t.from())
                .append(" -> ")
                .append(t.to())
                .append(' ')
                .append(queries)
                .append('\n'));
    return sb.toString();
  }
}
