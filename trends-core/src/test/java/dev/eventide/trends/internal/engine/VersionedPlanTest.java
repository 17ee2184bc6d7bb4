package dev.eventide.trends.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A schedule of changes known in advance, evaluated the way a runner keyed by (version, unit,
 * partition) does: events routed to their versions whenever they come, states encoded and decoded
 * between events (removed queries included), results filtered by removal. Equal to brute force over
 * each query's windows in force, on 1,500 seeded schedules and every sharing mode.
 */
class VersionedPlanTest {
  private record StateKey(int version, int unit, List<Object> partition) {}

  @Test
  void keyedEvaluationOfAScheduleEqualsBruteForce() {
    int decodedRetiring = 0;
    for (long seed : Seeds.range(0, 1500).toArray()) {
      WorkloadSchedules.Case c = WorkloadSchedules.Case.of(seed, 24, 16, 40);
      List<TrendResult> expected = c.expected();
      Workload initial = c.initial();
      List<WorkloadChange> applied = c.applied();
      List<Event> events = c.events();
      for (Sharing sharing : Sharing.values()) {
        VersionedPlan plan = VersionedPlan.compile(initial, applied, sharing);
        int[] retiring = {0};
        List<TrendResult> actual = run(plan, events, new Random(seed), retiring);
        decodedRetiring += retiring[0];
        actual.sort(BruteForce.ORDER);
        long s = seed;
        assertEquals(expected, actual, () -> sharing + ", seed " + s + "\n" + c.describe());
      }
    }
    assertTrue(decodedRetiring > 100, "states with removed queries decoded: " + decodedRetiring);
  }

  @Test
  void aScheduleWithAChangeThatDoesNotApplyIsRefusedNamingIt() {
    Workload w = Workload.parse("QUERY q0\nRETURN COUNT(*)\nPATTERN A+\nWITHIN 10 ms\n");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                VersionedPlan.compile(w, List.of(WorkloadChange.remove(5, "q1")), Sharing.DYNAMIC));
    assertEquals(
        "the workload change (remove at 5: q1) does not apply: no query named 'q1' is running"
            + " (running: q0)",
        e.getMessage());
  }

  @Test
  void changesAtOneTimeMakeOneVersion() {
    Workload w = Workload.parse("QUERY q0\nRETURN COUNT(*)\nPATTERN A+\nWITHIN 10 ms\n");
    VersionedPlan plan =
        VersionedPlan.compile(
            w,
            List.of(
                WorkloadChange.add(20, "QUERY q0\nRETURN COUNT(*)\nPATTERN B+\nWITHIN 10 ms"),
                WorkloadChange.remove(20, "q0"),
                WorkloadChange.remove(40, "q0"),
                WorkloadChange.add(40, "QUERY q1\nRETURN COUNT(*)\nPATTERN B+\nWITHIN 10 ms")),
            Sharing.DYNAMIC);
    assertEquals(3, plan.versions());
    assertEquals(
        List.of(Long.MIN_VALUE, 20L, 40L), List.of(plan.from(0), plan.from(1), plan.from(2)));
    assertEquals(20, plan.until(0));
    assertEquals(Long.MAX_VALUE, plan.until(2));
    assertEquals(20, plan.removedAt(0, "q0"));
    assertEquals(40, plan.removedAt(1, "q0"));
    assertEquals(Long.MAX_VALUE, plan.removedAt(2, "q1"));
  }

  /** Routes, advances, closes, filters and retires as a keyed runner would. */
  private static List<TrendResult> run(
      VersionedPlan plan, List<Event> events, Random cuts, int[] decodedRetiring) {
    Map<StateKey, TrendState> states = new LinkedHashMap<>();
    List<TrendResult> out = new ArrayList<>();
    Counters counters = new Counters();
    for (Event e : events) {
      close(plan, states, e.time(), counters, out);
      for (VersionedPlan.Route r : plan.route(e)) {
        StateKey key = new StateKey(r.version(), r.unit(), r.partition());
        TrendState state =
            states.computeIfAbsent(key, k -> plan.newState(r.version(), r.unit(), r.partition()));
        plan.plan(r.version()).advance(state, List.of(e), counters);
      }
      if (cuts.nextInt(3) == 0) {
        for (Map.Entry<StateKey, TrendState> s : states.entrySet()) {
          int v = s.getKey().version();
          TrendStateCodec codec = TrendStateCodec.of(plan.plan(v));
          TrendState decoded = codec.decode(codec.encode(s.getValue()));
          plan.limit(v, decoded);
          if (decoded.retired != null) {
            decodedRetiring[0]++;
          }
          s.setValue(decoded);
        }
      }
    }
    close(plan, states, Long.MAX_VALUE, counters, out);
    return out;
  }

  private static void close(
      VersionedPlan plan,
      Map<StateKey, TrendState> states,
      long upTo,
      Counters counters,
      List<TrendResult> out) {
    Map<List<Object>, WindowResult> combined = new LinkedHashMap<>();
    for (Iterator<Map.Entry<StateKey, TrendState>> it = states.entrySet().iterator();
        it.hasNext(); ) {
      Map.Entry<StateKey, TrendState> s = it.next();
      int v = s.getKey().version();
      for (WindowResult r : plan.plan(v).closeWindows(s.getValue(), upTo, counters)) {
        if (plan.emits(v, r)) {
          combined.merge(
              List.of(r.query(), r.windowStart(), r.windowEnd(), r.group()),
              r,
              WindowResult::combine);
        }
      }
      plan.retireClosed(v, s.getValue(), upTo);
      if (s.getValue().isEmpty()) {
        it.remove();
      }
    }
    combined.values().forEach(r -> out.add(r.toTrendResult()));
  }
}
