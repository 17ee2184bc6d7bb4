package dev.eventide.trends.internal.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.testing.differential.Seeds;
import dev.eventide.trends.BruteForce;
import dev.eventide.trends.Event;
import dev.eventide.trends.RandomWorkloads;
import dev.eventide.trends.Sharing;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.query.Workload;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Encoding every state after a random event — between two events of one timestamp, in the middle of
 * a burst — and continuing with the decoded states of a freshly compiled plan (as another JVM
 * restoring a checkpoint would) gives exactly the results of an uninterrupted run.
 */
class TrendStateRoundTripTest {

  @Test
  void decodingAfterARandomEventThenContinuingChangesNoResult() {
    Random cuts = new Random(3);
    int encodedStates = 0;
    for (long seed : Seeds.range(0, 1500).toArray()) {
      RandomWorkloads random = new RandomWorkloads(seed);
      boolean sharable = seed % 2 == 0;
      Workload workload =
          Workload.parse(sharable ? random.sharableWorkload(4) : random.workload(3));
      List<Event> events = sharable ? random.burstyEvents(80) : random.events(60, 40);
      for (Sharing sharing : Sharing.values()) {
        List<TrendResult> uninterrupted = run(workload, sharing, events, -1);
        int cut = cuts.nextInt(events.size());
        int[] encoded = {0};
        List<TrendResult> resumed = run(workload, sharing, events, cut, encoded);
        encodedStates += encoded[0];
        long s = seed;
        assertEquals(
            uninterrupted,
            resumed,
            () ->
                sharing + ", seed " + s + ", cut before event " + cut + "\n" + workload.queries());
      }
    }
    assertTrue(encodedStates > 1000, "states were really encoded: " + encodedStates);
  }

  @Test
  void rejectsBytesThatAreNotAStateOfThePlan() {
    RandomWorkloads random = new RandomWorkloads(1);
    Workload workload = Workload.parse(random.sharableWorkload(3));
    TrendPlan plan = TrendPlan.compile(workload, Sharing.DYNAMIC);
    TrendState state = plan.newState(0, List.of(java.math.BigDecimal.ZERO));
    plan.advance(state, List.of(Event.of("B", 5, "a", 1, "g", 0)), new Counters());
    byte[] bytes = TrendStateCodec.of(plan).encode(state);

    byte[] otherVersion = bytes.clone();
    otherVersion[0] = 9;
    IllegalArgumentException version =
        assertThrows(
            IllegalArgumentException.class, () -> TrendStateCodec.of(plan).decode(otherVersion));
    assertTrue(version.getMessage().contains("version 9"), version.getMessage());

    TrendPlan other =
        TrendPlan.compile(
            Workload.parse(new RandomWorkloads(2).sharableWorkload(3)), Sharing.DYNAMIC);
    IllegalArgumentException workloadChanged =
        assertThrows(IllegalArgumentException.class, () -> TrendStateCodec.of(other).decode(bytes));
    assertTrue(
        workloadChanged.getMessage().contains("another workload"), workloadChanged.getMessage());

    for (int n = 1; n < bytes.length; n++) {
      byte[] truncated = Arrays.copyOf(bytes, n);
      assertThrows(
          IllegalArgumentException.class, () -> TrendStateCodec.of(plan).decode(truncated));
    }
  }

  static List<TrendResult> run(Workload workload, Sharing sharing, List<Event> events, int cut) {
    return run(workload, sharing, events, cut, new int[1]);
  }

  /** Drives the plan as an engine does, re-encoding every state before event {@code cut}. */
  static List<TrendResult> run(
      Workload workload, Sharing sharing, List<Event> events, int cut, int[] encoded) {
    TrendPlan plan = TrendPlan.compile(workload, sharing);
    Counters counters = new Counters();
    Map<Integer, Map<List<Object>, TrendState>> states = new HashMap<>();
    Map<List<Object>, WindowResult> results = new LinkedHashMap<>();
    for (int i = 0; i < events.size(); i++) {
      Event e = events.get(i);
      if (i == cut) {
        TrendPlan restored = TrendPlan.compile(workload, sharing);
        TrendStateCodec before = TrendStateCodec.of(plan);
        TrendStateCodec after = TrendStateCodec.of(restored);
        for (Map<List<Object>, TrendState> byPartition : states.values()) {
          for (var entry : byPartition.entrySet()) {
            byte[] bytes = before.encode(entry.getValue());
            TrendState decoded = after.decode(bytes);
            assertArrayEquals(bytes, after.encode(decoded), "the encoding is canonical");
            entry.setValue(decoded);
            encoded[0]++;
          }
        }
        plan = restored;
      }
      closeAll(plan, states, e.time(), counters, results);
      for (TrendPlan.Route r : plan.route(e)) {
        TrendPlan p = plan;
        TrendState state =
            states
                .computeIfAbsent(r.unit(), u -> new HashMap<>())
                .computeIfAbsent(r.partition(), k -> p.newState(r.unit(), k));
        plan.advance(state, List.of(e), counters);
      }
    }
    closeAll(plan, states, Long.MAX_VALUE, counters, results);
    List<TrendResult> out = new ArrayList<>();
    results.values().forEach(r -> out.add(r.toTrendResult()));
    out.sort(BruteForce.ORDER);
    return out;
  }

  private static void closeAll(
      TrendPlan plan,
      Map<Integer, Map<List<Object>, TrendState>> states,
      long upTo,
      Counters counters,
      Map<List<Object>, WindowResult> results) {
    for (Map<List<Object>, TrendState> byPartition : states.values()) {
      for (TrendState s : byPartition.values()) {
        for (WindowResult r : plan.closeWindows(s, upTo, counters)) {
          results.merge(List.of(r.query(), r.windowStart(), r.group()), r, WindowResult::combine);
        }
      }
    }
  }
}
