package dev.eventide.trends.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.trends.BruteForce;
import dev.eventide.trends.Event;
import dev.eventide.trends.TrendEngine;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.query.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The worked examples of the HAMLET paper (Figures 4–6, Tables 3–5, Equations 9–11). The figures
 * survive only partly in the paper's text; the event streams here are the smallest that give every
 * number the text shows: graphlets A1 = {a1, a2}, C1 = {c1}, B1 = {b1..b4}, A2 = {a3, a4}, C2 =
 * {c2, c3, c4}, then b5 opening B2.
 */
class HamletPaperExamplesTest {
  private static final String WORKLOAD =
      """
      QUERY q1
      RETURN COUNT(*)
      PATTERN SEQ(A, B+)
      WITHIN 100 ms

      QUERY q2
      RETURN COUNT(*)
      PATTERN SEQ(C, B+)
      %s
      WITHIN 100 ms
      """;

  /** Figure 4's stream; x is each B event's attribute. */
  private static List<Event> stream(boolean withB5) {
    List<Event> events = new ArrayList<>();
    events.add(Event.of("A", 1));
    events.add(Event.of("A", 2));
    events.add(Event.of("C", 3));
    int[] x = {0, 5, 1, 9};
    for (int i = 0; i < 4; i++) {
      events.add(Event.of("B", 4 + i, "x", x[i]));
    }
    events.add(Event.of("A", 8));
    events.add(Event.of("A", 9));
    events.add(Event.of("C", 10));
    events.add(Event.of("C", 11));
    events.add(Event.of("C", 12));
    if (withB5) {
      events.add(Event.of("B", 13, "x", 10));
    }
    return events;
  }

  @Test
  void example4AndTable3TheSharedGraphletPropagatesOneSnapshot() {
    // Table 3: within B1 the counts are x, 2x, 4x, 8x; x = sum(A1, q1) = 2 and sum(C1, q2) = 1.
    Workload w = Workload.parse(WORKLOAD.formatted(""));
    List<Event> b1Only = stream(false);
    assertEquals(Map.of("q1", "30", "q2", "15"), values(Engines.HAMLET_STATIC, w, b1Only));
    assertEquals(Map.of("q1", "30", "q2", "15"), values(Engines.GRETA, w, b1Only));
  }

  @Test
  void table4SnapshotYCarriesXAndTheGraphletsBetween() {
    // y = value(x) + sum(B1) + sum(A2 | C2): 2 + 15·2 + 2 = 34 for q1, 1 + 15·1 + 3 = 19 for q2;
    // b5's count is y, so the totals grow by y.
    Workload w = Workload.parse(WORKLOAD.formatted(""));
    Map<String, Long> stats = new java.util.HashMap<>();
    Map<String, String> values = values(Engines.HAMLET_STATIC, w, stream(true), stats);
    assertEquals(Map.of("q1", String.valueOf(30 + 34), "q2", String.valueOf(15 + 19)), values);
    assertEquals(2L, stats.get("sharedBursts"), "B1 and B2 are shared graphlets");
    assertEquals(2L, stats.get("snapshots"), "one snapshot per graphlet: x and y");
    assertEquals(null, stats.get("splitBursts"));
    assertEquals(values, values(Engines.GRETA, w, stream(true)));
  }

  @Test
  void table5AnEdgeThatHoldsForOneQueryOnly() {
    // The edge b2 -> b3 holds for q1 but not q2 (x falls from 5 to 1): z = count(b3) is 8 for q1
    // (x + b1 + b2 = 2 + 2 + 4) and 2 for q2 (x + b1 = 1 + 1); y is then 34 for q1 and 15 for q2.
    // HAMLET evaluates q2 alone here: a NEXT predicate makes every edge of a burst query-specific.
    Workload w = Workload.parse(WORKLOAD.formatted("WHERE B.x <= NEXT(B).x"));
    // q1: 2 + 4 + 8 + 16 + 34 = 64; q2: 1 + 2 + 2 + 6 + 15 = 26.
    Map<String, String> expected = Map.of("q1", "64", "q2", "26");
    for (Engines engine : Engines.values()) {
      assertEquals(expected, values(engine, w, stream(true)), engine.cliName());
    }
    assertEquals(expected, bruteForce(w, stream(true)));
  }

  @Test
  void anEventSomeQueriesRejectSplitsTheBurstIntoClasses() {
    // b3 fails q2's predicate: q1 and q2 no longer accept the same events of B1, so B1 is
    // evaluated for two classes of queries (a split); B2 (b5) is still shared.
    Workload w = Workload.parse(WORKLOAD.formatted("WHERE B.x != 1"));
    Map<String, Long> stats = new java.util.HashMap<>();
    Map<String, String> shared = values(Engines.HAMLET_STATIC, w, stream(true), stats);
    assertEquals(1L, stats.get("splitBursts"));
    assertEquals(2L, stats.get("sharedBursts"));
    assertEquals(bruteForce(w, stream(true)), shared);
    assertEquals(values(Engines.GRETA, w, stream(true)), shared);
  }

  @Test
  void theBenefitModelSharesLongBurstsOfLargeNumbersAndNotShortBurstsOfSmallOnes() {
    // One window: a burst of 1 or 2 events over small counts costs less alone (an addition per
    // query and event) than computing and applying a map, for one query or two; 12 events over
    // counts of 1,000 bits cost far less shared, even for one query.
    assertTrue(TrendPlan.benefit(1, 1, 1, 1, 3, 1) < 0);
    assertTrue(TrendPlan.benefit(2, 1, 1, 1, 3, 1) < 0);
    assertTrue(TrendPlan.benefit(2, 1, 2, 2, 3, 1) < 0);
    assertTrue(TrendPlan.benefit(1, 1, 12, 12, 3000, 1) > 0, "in place beats a copy when large");
    assertTrue(TrendPlan.benefit(2, 1, 12, 12, 1000, 1) > 0);
    assertTrue(TrendPlan.benefit(4, 1, 2, 2, 3, 1) > 0, "two events for four queries pay");
    // More queries sharing the same coefficients only make it pay more.
    assertTrue(
        TrendPlan.benefit(20, 1, 12, 12, 1000, 1) > TrendPlan.benefit(2, 1, 12, 12, 1000, 1));
  }

  private static Map<String, String> values(Engines engine, Workload w, List<Event> events) {
    return values(engine, w, events, new java.util.HashMap<>());
  }

  private static Map<String, String> values(
      Engines engine, Workload w, List<Event> events, Map<String, Long> stats) {
    List<TrendResult> results = new ArrayList<>();
    TrendEngine e = engine.create(w, results::add);
    events.forEach(e::process);
    e.finish();
    stats.putAll(e.statistics());
    return toMap(results);
  }

  private static Map<String, String> bruteForce(Workload w, List<Event> events) {
    return toMap(BruteForce.evaluate(w, events));
  }

  private static Map<String, String> toMap(List<TrendResult> results) {
    Map<String, String> values = new java.util.TreeMap<>();
    for (TrendResult r : results) {
      if (r.windowStart() == 0) {
        values.put(r.query(), r.value());
      }
    }
    return values;
  }
}
