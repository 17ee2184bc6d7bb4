package dev.eventide.trends.internal.engine;

import dev.eventide.trends.query.Aggregation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds which queries may share which Kleene sub-pattern (HAMLET Definitions 4 and 5): {@code E+}
 * is shareable by the queries labelling the transition from E to E of the {@link MergedTemplate}.
 *
 * <p>A query q can share {@code E+} when E labels exactly one state of q's automaton and that state
 * loops on itself (the paper's assumption that a Kleene plus over E appears once), E is not negated
 * in q, q has no {@code E.a op NEXT(E).b} predicate (it would make every edge of a burst
 * query-specific, so every event an event-level snapshot: sharing could never pay), and q's
 * aggregate is COUNT(*), COUNT, SUM or AVG (they propagate linearly and share with each other; MIN
 * and MAX are evaluated alone). Queries share {@code E+} when they also have the same window
 * (Definition 5 asks for overlapping windows; equal windows avoid panes) and the same GROUPBY and
 * equivalence attributes. Each query joins at most one group, the largest it can.
 */
public final class SharingAnalysis {
  private SharingAnalysis() {}

  /** Queries that share the processing of bursts of one Kleene type. */
  record ShareGroup(String type, List<CompiledQuery> members) {}

  private record Key(String type, long within, long slide, List<String> partition) {}

  static List<ShareGroup> shareGroups(List<CompiledQuery> queries) {
    MergedTemplate template = MergedTemplate.of(queries);
    Map<Key, List<CompiledQuery>> candidates = new LinkedHashMap<>();
    for (var shareable : template.shareableKleene().entrySet()) {
      String type = shareable.getKey();
      for (CompiledQuery q : queries) {
        if (shareable.getValue().contains(q.query.name()) && canShare(q, type)) {
          Key key =
              new Key(
                  type,
                  q.query.within(),
                  q.query.slide(),
                  List.of(
                      String.join(",", q.query.groupBy()),
                      String.join(",", q.query.equivalence().stream().sorted().toList())));
          candidates.computeIfAbsent(key, k -> new ArrayList<>()).add(q);
        }
      }
    }
    List<Map.Entry<Key, List<CompiledQuery>>> bySize = new ArrayList<>(candidates.entrySet());
    bySize.sort(Comparator.comparingInt(e -> -e.getValue().size()));
    Set<CompiledQuery> assigned = new HashSet<>();
    List<ShareGroup> groups = new ArrayList<>();
    for (var entry : bySize) {
      List<CompiledQuery> members = new ArrayList<>(entry.getValue());
      members.removeAll(assigned);
      if (members.size() > 1) {
        members.sort(Comparator.comparingInt(q -> q.index));
        groups.add(new ShareGroup(entry.getKey().type(), List.copyOf(members)));
        assigned.addAll(members);
      }
    }
    return groups;
  }

  static boolean canShare(CompiledQuery q, String type) {
    long states = q.statesOf(type);
    if (Long.bitCount(states) != 1) {
      return false;
    }
    int state = Long.numberOfTrailingZeros(states);
    Aggregation.Kind kind = q.query.aggregation().kind();
    return q.automaton.edges(state).containsKey(state)
        && q.negatedBit(type) == 0
        && !q.hasAdjacentPredicates(type)
        && kind != Aggregation.Kind.MIN
        && kind != Aggregation.Kind.MAX;
  }
}
