package dev.eventide.pipelines.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import dev.eventide.trends.Event;
import dev.eventide.trends.TrendEngine;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.query.Workload;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Varpulis-shaped stream has the shape it claims, and its counts the closed form's. */
class TrendStreamsTest {
  private static final long WINDOW = 60_000;

  @Test
  void varpulisWindowsHoldTenRunsOfEachStartTypeEachAStartThenTwentyBs() {
    List<Event> events = TrendStreams.events(TrendStreams.Kind.VARPULIS, 0, 2_100, 3, WINDOW);
    assertThat(events.size(), equalTo(6_300));
    for (int w = 0; w < 3; w++) {
      List<Event> window = events.subList(w * 2_100, (w + 1) * 2_100);
      Map<String, Integer> types = new HashMap<>();
      for (int i = 0; i < window.size(); i++) {
        Event e = window.get(i);
        assertThat(e + " in window " + w, e.time() / WINDOW, equalTo((long) w));
        assertThat(e.type(), equalTo(i % 21 == 0 ? "S" + (i / 21) % 10 : "B"));
        types.merge(e.type(), 1, Integer::sum);
        if (i > 0) {
          assertThat(e.time() > window.get(i - 1).time(), equalTo(true));
        }
      }
      assertThat(types.get("B"), equalTo(2_000));
      for (int s = 0; s < 10; s++) {
        assertThat(types.get("S" + s), equalTo(10));
      }
    }
  }

  /**
   * SEQ(S_k, B+) under skip-till-any-match: every S_k and any non-empty subset of the B events
   * after it in the window, so a window's count is the sum over its S_k of 2^(Bs after it) − 1.
   */
  @Test
  void hamletCountsTheVarpulisWorkloadAsTheClosedFormDoes() {
    int queries = 12;
    List<Event> events = TrendStreams.events(TrendStreams.Kind.VARPULIS, 0, 420, 2, WINDOW);
    Workload workload =
        Workload.parse(TrendStreams.workload(TrendStreams.Kind.VARPULIS, 0, queries, WINDOW));
    List<TrendResult> results = new ArrayList<>();
    TrendEngine engine = Engines.HAMLET.create(workload, results::add);
    events.forEach(engine::process);
    engine.finish();
    assertThat(results.size(), equalTo(2 * queries));
    for (TrendResult r : results) {
      int start = Integer.parseInt(r.query().substring(1)) % 10;
      BigInteger expected = BigInteger.ZERO;
      List<Event> window =
          events.stream().filter(e -> e.time() / WINDOW == r.windowStart() / WINDOW).toList();
      for (int i = 0; i < window.size(); i++) {
        if (window.get(i).type().equals("S" + start)) {
          long bs =
              window.subList(i, window.size()).stream().filter(e -> e.type().equals("B")).count();
          expected = expected.add(BigInteger.TWO.pow((int) bs).subtract(BigInteger.ONE));
        }
      }
      assertThat(r.toString(), r.value(), equalTo(expected.toString()));
    }
  }
}
