package dev.eventide.trends.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.testing.differential.Seeds;
import dev.eventide.trends.BruteForce;
import dev.eventide.trends.Event;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.WorkloadSchedules;
import dev.eventide.trends.engine.ChangeableTrendEngine;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.query.Query;
import dev.eventide.trends.query.QueryException;
import dev.eventide.trends.query.Workload;
import dev.eventide.trends.query.WorkloadChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Workloads changed while events flow, against the brute-force enumerator: every query gives
 * exactly brute force's results over the windows it is in force for (those starting at or after its
 * addition and ending by its removal), and the queries no change touches give, in the same order,
 * exactly the results of a run without changes.
 */
class ChangingWorkloadTest {
  private static final List<Engines> ENGINES =
      List.of(Engines.HAMLET, Engines.HAMLET_STATIC, Engines.UNSHARED);

  @Test
  void everyQueryEqualsBruteForceOverTheWindowsItIsInForceFor() {
    for (long seed : Seeds.range(0, 1500).toArray()) {
      WorkloadSchedules.Case c = WorkloadSchedules.Case.of(seed, 24, 16, 40);
      List<TrendResult> expected = c.expected();
      for (Engines engine : ENGINES) {
        List<TrendResult> actual = new ArrayList<>();
        List<WorkloadChange> applied = run(engine, c, actual);
        long s = seed;
        assertEquals(
            c.applied(),
            applied,
            () -> engine + ": the changes applied, seed " + s + "\n" + c.describe());
        List<TrendResult> sorted = new ArrayList<>(actual);
        sorted.sort(BruteForce.ORDER);
        assertEquals(
            expected,
            sorted,
            () -> engine + " differs from brute force, seed " + s + "\n" + c.describe());
        assertUntouchedQueriesAsWithoutChanges(
            seed, engine, c.initial(), c.applied(), c.events(), actual);
      }
    }
  }

  @Test
  void aChangeThatDoesNotApplyLeavesTheEngineAsItWas() {
    Workload workload =
        Workload.parse(
            "QUERY q0\nRETURN COUNT(*)\nPATTERN SEQ(A, B+)\nWITHIN 10 ms\n\n"
                + "QUERY q1\nRETURN COUNT(*)\nPATTERN SEQ(C, B+)\nWITHIN 10 ms\n");
    List<TrendResult> results = new ArrayList<>();
    ChangeableTrendEngine engine = Engines.HAMLET.createChangeable(workload, results::add);
    engine.process(Event.of("A", 1));
    IllegalArgumentException unknown =
        assertThrows(
            IllegalArgumentException.class, () -> engine.change(WorkloadChange.remove(5, "q9")));
    assertEquals("no query named 'q9' is running (running: q0, q1)", unknown.getMessage());
    QueryException taken =
        assertThrows(
            QueryException.class,
            () ->
                engine.change(
                    WorkloadChange.add(5, "QUERY q1\nRETURN COUNT(*)\nPATTERN A+\nWITHIN 5 ms")));
    assertEquals("line 1, column 1: a query named 'q1' is already running", taken.getMessage());
    QueryException bad =
        assertThrows(
            QueryException.class,
            () -> engine.change(WorkloadChange.add(5, "QUERY q2\nRETURN COUNT(*)\nPATTERN")));
    assertTrue(bad.getMessage().startsWith("line 3, column "), bad.getMessage());
    IllegalArgumentException past =
        assertThrows(
            IllegalArgumentException.class, () -> engine.change(WorkloadChange.remove(1, "q0")));
    assertTrue(past.getMessage().contains("later than the last event"), past.getMessage());
    engine.process(Event.of("B", 2));
    engine.process(Event.of("C", 3));
    engine.process(Event.of("B", 4));
    engine.finish();
    assertEquals(
        List.of(
            new TrendResult("q0", java.util.Map.of(), 0, 10, "3"),
            new TrendResult("q1", java.util.Map.of(), 0, 10, "1")),
        results);
  }

  @Test
  void gretaEvaluatesAFixedWorkloadOnly() {
    Workload workload = Workload.parse("QUERY q0\nRETURN COUNT(*)\nPATTERN A+\nWITHIN 10 ms\n");
    UnsupportedOperationException e =
        assertThrows(
            UnsupportedOperationException.class,
            () -> Engines.GRETA.createChangeable(workload, r -> {}));
    assertTrue(e.getMessage().contains("fixed workload"), e.getMessage());
  }

  @Test
  void aRemovedQuerysStateGoesAndAVersionEndsWithItsWindows() {
    Workload workload =
        Workload.parse(
            "QUERY q0\nRETURN COUNT(*)\nPATTERN SEQ(A, B+)\nWITHIN 10 ms SLIDE 5 ms\n\n"
                + "QUERY q1\nRETURN COUNT(*)\nPATTERN SEQ(A, B+)\nWITHIN 10 ms SLIDE 5 ms\n");
    List<TrendResult> results = new ArrayList<>();
    ChangeableTrendEngine engine = Engines.HAMLET.createChangeable(workload, results::add);
    for (long t = 0; t < 1_000; t += 3) {
      if (t == 300) {
        engine.change(WorkloadChange.remove(300, "q1"));
      }
      if (t == 600) {
        engine.change(
            WorkloadChange.add(600, "QUERY q1\nRETURN COUNT(*)\nPATTERN A\nWITHIN 10 ms"));
      }
      engine.process(Event.of(t % 2 == 0 ? "A" : "B", t));
    }
    engine.finish();
    assertEquals(2, engine.statistics().get("workloadChanges"));
    assertTrue(
        results.stream()
            .filter(r -> r.query().equals("q1"))
            .allMatch(r -> r.windowEnd() <= 300 || r.windowStart() >= 600),
        "q1 gave no result between its removal and its return");
    assertTrue(
        results.stream().anyMatch(r -> r.query().equals("q1") && r.windowStart() >= 600),
        "the new q1 ran");
    assertEquals(1, ((IncrementalEngine) engine).versions(), "versions before 600 ended");
  }

  /** The queries no change names give, in order, what they give without changes. */
  private static void assertUntouchedQueriesAsWithoutChanges(
      long seed,
      Engines engine,
      Workload initial,
      List<WorkloadChange> changes,
      List<Event> events,
      List<TrendResult> withChanges) {
    Set<String> touched =
        changes.stream()
            .flatMap(
                c ->
                    c.add() != null
                        ? Workload.parse(c.add()).queries().stream().map(Query::name)
                        : c.remove().stream())
            .collect(Collectors.toSet());
    List<TrendResult> fixed =
        engine.evaluate(initial, events).stream()
            .filter(r -> !touched.contains(r.query()))
            .toList();
    List<TrendResult> changed =
        withChanges.stream().filter(r -> !touched.contains(r.query())).toList();
    assertEquals(fixed, changed, () -> engine + ": untouched queries differ, seed " + seed);
  }

  /**
   * Runs the engine over the case's stream, giving it each change of the schedule before the first
   * event at or after its time, and returns the changes it took (it refuses the others).
   */
  private static List<WorkloadChange> run(
      Engines engine, WorkloadSchedules.Case c, List<TrendResult> out) {
    List<WorkloadChange> applied = new ArrayList<>();
    ChangeableTrendEngine trends = engine.createChangeable(c.initial(), out::add);
    List<WorkloadChange> changes = c.schedule();
    List<Event> events = c.events();
    int next = 0;
    for (int i = 0; i <= events.size(); i++) {
      long time = i < events.size() ? events.get(i).time() : Long.MAX_VALUE;
      while (next < changes.size() && changes.get(next).time() <= time) {
        WorkloadChange change = changes.get(next++);
        try {
          trends.change(change);
          applied.add(change);
        } catch (IllegalArgumentException refused) {
          // left out, as the reference leaves it out
        }
      }
      if (i < events.size()) {
        trends.process(events.get(i));
      }
    }
    trends.finish();
    return applied;
  }
}
