package dev.eventide.trends.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.testing.differential.Seeds;
import dev.eventide.trends.BruteForce;
import dev.eventide.trends.Event;
import dev.eventide.trends.Sharing;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.WorkloadSchedules;
import dev.eventide.trends.query.Workload;
import dev.eventide.trends.query.WorkloadChange;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Versions learnt as a job runs, evaluated the way {@code TrendAggregate} does with changes sent
 * while it runs: an event is routed by the versions in force by its time (all a runner can know
 * once the watermark has passed it), each key evaluates its own version alone, knowing of no later
 * one, and a result is kept only where the later versions are known ({@link VersionedPlan#inForce}
 * with the next version's time and its query's removal). Equal to brute force over each query's
 * windows in force, on 1,000 seeded schedules and every sharing mode.
 */
class LiveVersionsTest {
  private record StateKey(int version, int unit, List<Object> partition) {}

  @Test
  void keysThatKnowOnlyTheirOwnVersionGiveBruteForceOnceFilteredByTheLaterOnes() {
    int dropped = 0;
    for (long seed : Seeds.range(0, 1000).toArray()) {
      WorkloadSchedules.Case c = WorkloadSchedules.Case.of(seed, 24, 16, 40);
      List<WorkloadVersion> versions = versions(c.initial(), c.applied());
      for (Sharing sharing : Sharing.values()) {
        int[] filtered = {0};
        List<TrendResult> actual = run(versions, c.events(), sharing, filtered);
        dropped += filtered[0];
        actual.sort(BruteForce.ORDER);
        long s = seed;
        assertEquals(c.expected(), actual, () -> sharing + ", seed " + s + "\n" + c.describe());
      }
    }
    assertTrue(dropped > 100, "results of a version's keys outside it, dropped: " + dropped);
  }

  @Test
  void aChangeThatDoesNotApplyIsRefusedWithItsReasonAndTheOthersApply() {
    WorkloadVersion v0 =
        WorkloadVersion.initial(
            Workload.parse("QUERY q0\nRETURN COUNT(*)\nPATTERN A+\nWITHIN 10 ms\n"));
    Map<String, String> refused = new LinkedHashMap<>();
    WorkloadVersion v1 =
        v0.next(
            List.of(
                WorkloadChange.add(20, "QUERY q0\nRETURN COUNT(*)\nPATTERN B+\nWITHIN 10 ms"),
                WorkloadChange.remove(20, "q9"),
                WorkloadChange.add(20, "QUERY q1\nRETURN COUNT(*)\nPATTERN B+ WITHIN"),
                WorkloadChange.add(20, "QUERY q2\nRETURN COUNT(*)\nPATTERN B+\nWITHIN 5 ms")),
            (change, reason) -> refused.put(change.describe(), reason));
    assertEquals(1, v1.number());
    assertEquals(20, v1.from());
    assertEquals(List.of("q0", "q2"), v1.queryNames());
    assertEquals(List.of(), v1.removed());
    assertEquals(3, refused.size(), refused.toString());
    assertEquals("no query named 'q9' is running (running: q0)", refused.get("remove at 20: q9"));
    assertTrue(
        refused
            .get("add at 20: QUERY q0 RETURN COUNT(*) PATTERN B+ WITHIN 10 ms")
            .contains("a query named 'q0' is already running"),
        refused.toString());
    assertTrue(
        refused.get("add at 20: QUERY q1 RETURN COUNT(*) PATTERN B+ WITHIN").matches(".*line 3.*"),
        refused.toString());

    WorkloadVersion v2 =
        v1.next(
            List.of(
                WorkloadChange.add(30, "QUERY q0\nRETURN COUNT(*)\nPATTERN C+\nWITHIN 10 ms"),
                WorkloadChange.remove(30, "q0")),
            (change, reason) -> refused.put(change.describe(), reason));
    assertEquals(List.of("q2", "q0"), v2.queryNames());
    assertEquals(List.of("q0"), v2.removed(), "a query replaced under its name was removed");
    assertNull(v2.next(List.of(WorkloadChange.remove(40, "q7")), (change, reason) -> {}));
    assertThrows(
        IllegalArgumentException.class,
        () -> v2.next(List.of(WorkloadChange.remove(30, "q2")), (change, reason) -> {}));
  }

  @Test
  void aPlanOfLaterVersionsKeepsTheirNumbersAndTimes() {
    WorkloadVersion v0 =
        WorkloadVersion.initial(
            Workload.parse("QUERY q0\nRETURN COUNT(*)\nPATTERN A+\nWITHIN 10 ms\n"));
    WorkloadVersion v1 = v0.next(List.of(WorkloadChange.remove(20, "q0")), (change, reason) -> {});
    WorkloadVersion v2 =
        v1.next(
            List.of(WorkloadChange.add(40, "QUERY q1\nRETURN COUNT(*)\nPATTERN A+\nWITHIN 10 ms")),
            (change, reason) -> {});
    VersionedPlan plan = VersionedPlan.of(List.of(v1, v2), Sharing.DYNAMIC);
    assertEquals(1, plan.firstVersion());
    assertEquals(2, plan.lastVersion());
    assertEquals(20, plan.from(1));
    assertEquals(40, plan.until(1));
    assertEquals(List.of(), plan.route(Event.of("A", 35, Map.of())), "q0 is gone, q1 not yet in");
    assertEquals(
        List.of(new VersionedPlan.Route(2, 0, List.of())), plan.route(Event.of("A", 45, Map.of())));
    assertThrows(
        IllegalArgumentException.class, () -> VersionedPlan.of(List.of(v0, v2), Sharing.DYNAMIC));
  }

  /** The versions a schedule makes, changes at one time making one. */
  static List<WorkloadVersion> versions(Workload initial, List<WorkloadChange> applied) {
    List<WorkloadChange> ordered = new ArrayList<>(applied);
    ordered.sort(WorkloadChange.ORDER);
    List<WorkloadVersion> versions = new ArrayList<>(List.of(WorkloadVersion.initial(initial)));
    for (int i = 0; i < ordered.size(); ) {
      int j = i;
      while (j < ordered.size() && ordered.get(j).time() == ordered.get(i).time()) {
        j++;
      }
      WorkloadVersion next =
          versions
              .get(versions.size() - 1)
              .next(
                  ordered.subList(i, j),
                  (change, reason) -> {
                    throw new AssertionError(change.describe() + ": " + reason);
                  });
      versions.add(next);
      i = j;
    }
    return versions;
  }

  private static List<TrendResult> run(
      List<WorkloadVersion> versions, List<Event> events, Sharing sharing, int[] filtered) {
    VersionedPlan all = VersionedPlan.of(versions, sharing);
    Map<Integer, VersionedPlan> own = new HashMap<>();
    Map<StateKey, TrendState> states = new LinkedHashMap<>();
    List<TrendResult> out = new ArrayList<>();
    Counters counters = new Counters();
    for (Event e : events) {
      close(all, own, states, e.time(), counters, out, filtered);
      int known = 0;
      while (known < versions.size() && versions.get(known).from() <= e.time()) {
        known++;
      }
      VersionedPlan router = VersionedPlan.of(versions.subList(0, known), sharing);
      for (VersionedPlan.Route r : router.route(e)) {
        VersionedPlan plan =
            own.computeIfAbsent(
                r.version(), v -> VersionedPlan.of(List.of(versions.get(v)), sharing));
        TrendState state =
            states.computeIfAbsent(
                new StateKey(r.version(), r.unit(), r.partition()),
                k -> plan.newState(r.version(), r.unit(), r.partition()));
        plan.plan(r.version()).advance(state, List.of(e), counters);
      }
    }
    close(all, own, states, Long.MAX_VALUE, counters, out, filtered);
    return out;
  }

  private static void close(
      VersionedPlan all,
      Map<Integer, VersionedPlan> own,
      Map<StateKey, TrendState> states,
      long upTo,
      Counters counters,
      List<TrendResult> out,
      int[] filtered) {
    Map<List<Object>, WindowResult> combined = new LinkedHashMap<>();
    for (Iterator<Map.Entry<StateKey, TrendState>> it = states.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<StateKey, TrendState> s = it.next();
      int v = s.getKey().version();
      for (WindowResult r : own.get(v).plan(v).closeWindows(s.getValue(), upTo, counters)) {
        if (VersionedPlan.inForce(
            r.windowStart(), r.windowEnd(), all.until(v), all.removedAt(v, r.query()))) {
          combined.merge(
              List.of(r.query(), r.windowStart(), r.windowEnd(), r.group()),
              r,
              WindowResult::combine);
        } else {
          filtered[0]++;
        }
      }
      if (s.getValue().isEmpty()) {
        it.remove();
      }
    }
    combined.values().forEach(r -> out.add(r.toTrendResult()));
  }
}
