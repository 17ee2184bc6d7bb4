package dev.eventide.trends.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.eventide.trends.query.Workload;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MergedTemplateTest {

  private static List<CompiledQuery> compile(String text) {
    return CompiledQuery.compile(Workload.parse(text).queries());
  }

  @Test
  void figure3MergesTheWorkloadIntoOneTemplateWithQueryLabels() {
    // Figure 3(b): q1 = SEQ(A, B+), q2 = SEQ(C, B+); B -> B is labelled by both.
    MergedTemplate t =
        MergedTemplate.of(
            compile(
                """
                QUERY q1 RETURN COUNT(*) PATTERN SEQ(A, B+) WITHIN 1 s
                QUERY q2 RETURN COUNT(*) PATTERN SEQ(C, B+) WITHIN 1 s
                """));
    assertEquals(
        Map.of(
            new MergedTemplate.Transition("A", "B"), Set.of("q1"),
            new MergedTemplate.Transition("B", "B"), Set.of("q1", "q2"),
            new MergedTemplate.Transition("C", "B"), Set.of("q2")),
        t.transitions());
    // Example 2: pt(B, q1) = {A, B}, pt(A, q1) = {}, start(q1) = {A}, end(q1) = {B}.
    assertEquals(Set.of("A", "B"), t.predecessorTypes("B", "q1"));
    assertEquals(Set.of(), t.predecessorTypes("A", "q1"));
    assertEquals(Set.of("A"), t.startTypes("q1"));
    assertEquals(Set.of("B"), t.endTypes("q1"));
    assertEquals(Map.of("B", Set.of("q1", "q2")), t.shareableKleene());
  }

  @Test
  void definition5SharesOnlyQueriesWithTheSameWindowGroupingAndShareableAggregates() {
    List<CompiledQuery> queries =
        compile(
            """
            QUERY count RETURN COUNT(*) PATTERN SEQ(A, B+) GROUPBY d WITHIN 1 s
            QUERY sum RETURN SUM(B.x) PATTERN SEQ(C, B+, D) GROUPBY d WITHIN 1 s
            QUERY avg RETURN AVG(B.x) PATTERN SEQ(A, B+) WHERE B.x < 3 GROUPBY d WITHIN 1 s
            QUERY min RETURN MIN(B.x) PATTERN SEQ(A, B+) GROUPBY d WITHIN 1 s
            QUERY other_window RETURN COUNT(*) PATTERN SEQ(A, B+) GROUPBY d WITHIN 2 s
            QUERY other_group RETURN COUNT(*) PATTERN SEQ(A, B+) WITHIN 1 s
            QUERY next RETURN COUNT(*) PATTERN SEQ(A, B+) WHERE B.x < NEXT(B).x GROUPBY d WITHIN 1 s
            QUERY twice RETURN COUNT(*) PATTERN SEQ(B+, A, B+) GROUPBY d WITHIN 1 s
            """);
    List<SharingAnalysis.ShareGroup> groups = SharingAnalysis.shareGroups(queries);
    assertEquals(1, groups.size());
    assertEquals("B", groups.get(0).type());
    assertEquals(
        List.of("count", "sum", "avg"),
        groups.get(0).members().stream().map(q -> q.query.name()).toList());
  }
}
