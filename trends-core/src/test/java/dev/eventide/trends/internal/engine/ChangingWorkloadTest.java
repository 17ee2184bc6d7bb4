package dev.eventide.trends.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.testing.differential.Seeds;
import dev.eventide.trends.BruteForce;
import dev.eventide.trends.Event;
import dev.eventide.trends.RandomWorkloads;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.WorkloadSchedules;
import dev.eventide.trends.WorkloadSchedules.Incarnation;
import dev.eventide.trends.engine.ChangeableTrendEngine;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.query.Query;
import dev.eventide.trends.query.QueryException;
import dev.eventide.trends.query.Workload;
import dev.eventide.trends.query.WorkloadChange;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
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
      Random random = new Random(seed);
      RandomWorkloads workloads = new RandomWorkloads(seed);
      boolean sharable = seed % 2 == 0;
      List<String> texts =
          WorkloadSchedules.blocks(
              sharable ? workloads.sharableWorkload(8) : workloads.workload(8));
      List<Event> events = sharable ? workloads.burstyEvents(24) : workloads.events(16, 40);
      long span = events.get(events.size() - 1).time() + 2;
      Workload initial = Workload.parse(String.join("\n\n", texts.subList(0, 3)));
      List<WorkloadChange> changes = WorkloadSchedules.schedule(random, texts, span);
      for (Engines engine : ENGINES) {
        List<TrendResult> actual = new ArrayList<>();
        List<Incarnation> ran = run(engine, initial, changes, events, actual);
        List<TrendResult> expected = WorkloadSchedules.bruteForce(ran, events);
        List<TrendResult> sorted = new ArrayList<>(actual);
        sorted.sort(BruteForce.ORDER);
        long s = seed;
        assertEquals(
            expected,
            sorted,
            () ->
                engine
                    + " differs from brute force, seed "
                    + s
                    + "\ninitial:\n"
                    + initial.queries()
                    + "\nchanges: "
                    + changes.stream().map(WorkloadChange::describe).toList()
                    + "\nevents: "
                    + events);
        assertUntouchedQueriesAsWithoutChanges(seed, engine, initial, changes, events, actual);
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
   * Runs the engine, applying each change before the first event at or after its time, and returns
   * every query as it ran.
   */
  private static List<Incarnation> run(
      Engines engine,
      Workload initial,
      List<WorkloadChange> changes,
      List<Event> events,
      List<TrendResult> out) {
    List<Incarnation> running = new ArrayList<>();
    List<Incarnation> ended = new ArrayList<>();
    initial.queries().forEach(q -> running.add(new Incarnation(q, Long.MIN_VALUE, Long.MAX_VALUE)));
    ChangeableTrendEngine trends = engine.createChangeable(initial, out::add);
    int next = 0;
    for (int i = 0; i <= events.size(); i++) {
      long time = i < events.size() ? events.get(i).time() : Long.MAX_VALUE;
      while (next < changes.size() && changes.get(next).time() <= time) {
        WorkloadChange c = changes.get(next++);
        try {
          trends.change(c);
        } catch (IllegalArgumentException refused) {
          continue;
        }
        if (c.add() != null) {
          Workload.parse(c.add())
              .queries()
              .forEach(q -> running.add(new Incarnation(q, c.time(), Long.MAX_VALUE)));
        } else {
          for (Incarnation q : List.copyOf(running)) {
            if (c.remove().contains(q.query().name())) {
              running.remove(q);
              ended.add(new Incarnation(q.query(), q.added(), c.time()));
            }
          }
        }
      }
      if (i < events.size()) {
        trends.process(events.get(i));
      }
    }
    trends.finish();
    ended.addAll(running);
    return ended;
  }
}
