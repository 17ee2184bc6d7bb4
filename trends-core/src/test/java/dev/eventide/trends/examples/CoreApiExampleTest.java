package dev.eventide.trends.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.eventide.trends.Event;
import dev.eventide.trends.Sharing;
import dev.eventide.trends.TrendEngine;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.internal.engine.Counters;
import dev.eventide.trends.internal.engine.TrendPlan;
import dev.eventide.trends.internal.engine.TrendState;
import dev.eventide.trends.internal.engine.TrendStateCodec;
import dev.eventide.trends.internal.engine.WindowResult;
import dev.eventide.trends.query.Workload;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Java examples of docs/trend-aggregation.md, as they are printed there: if this test needs a
 * change, so does that page.
 */
class CoreApiExampleTest {
  private static final List<Event> EVENTS =
      List.of(
          Event.of("Request", 1_000, "driver", 7, "district", 3),
          Event.of("Travel", 2_000, "driver", 7, "district", 3),
          Event.of("Travel", 3_000, "driver", 7, "district", 3),
          Event.of("Travel", 4_000, "driver", 8, "district", 3));

  private static final TrendResult EXPECTED =
      new TrendResult("trips", Map.of("district", new BigDecimal(3)), 0, 600_000, "3");

  @Test
  void anEngineEvaluatesAWorkloadInProcess() {
    // docs/trend-aggregation.md: "The core in Java", first example.
    Workload workload =
        Workload.parse(
            """
            QUERY trips
            RETURN COUNT(*)
            PATTERN SEQ(Request, Travel+)
            WHERE [driver]
            GROUPBY district
            WITHIN 10 minutes
            """);
    List<TrendResult> results = new ArrayList<>();
    TrendEngine engine = Engines.HAMLET.create(workload, results::add); // events in time order
    for (Event e : EVENTS) {
      engine.process(e);
    }
    engine.finish(); // closes the open windows
    // results: [TrendResult[query=trips, group={district=3}, windowStart=0, windowEnd=600000,
    // value=3]]
    assertEquals(List.of(EXPECTED), results);
  }

  @Test
  void planAndEncodedStateAsAStatefulOperatorKeepsThem() {
    Workload workload =
        Workload.parse(
            "QUERY trips RETURN COUNT(*) PATTERN SEQ(Request, Travel+) WHERE [driver]"
                + " GROUPBY district WITHIN 10 minutes");
    // docs/trend-aggregation.md: "The core in Java", second example.
    TrendPlan plan = TrendPlan.compile(workload, Sharing.DYNAMIC); // immutable, shared
    TrendStateCodec codec = TrendStateCodec.of(plan);
    Counters counters = new Counters();
    Map<TrendPlan.Route, byte[]> store = new HashMap<>(); // per (unit, partition): encoded state
    for (Event e : EVENTS) { // one timestamp at a time, in time order
      for (TrendPlan.Route route : plan.route(e)) {
        byte[] bytes = store.get(route);
        TrendState state =
            bytes == null ? plan.newState(route.unit(), route.partition()) : codec.decode(bytes);
        plan.advance(state, List.of(e), counters);
        store.put(route, codec.encode(state));
      }
    }
    Map<List<Object>, WindowResult> byGroup = new HashMap<>(); // partitions of a group combined
    for (byte[] bytes : store.values()) {
      for (WindowResult r : plan.closeWindows(codec.decode(bytes), Long.MAX_VALUE, counters)) {
        byGroup.merge(List.of(r.query(), r.group(), r.windowStart()), r, WindowResult::combine);
      }
    }
    List<TrendResult> results = byGroup.values().stream().map(WindowResult::toTrendResult).toList();
    assertEquals(List.of(EXPECTED), results);
  }
}
