package dev.eventide.trends.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.eventide.trends.Event;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.query.Workload;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Values far beyond {@code long}: one A then a long burst of B events, whose trend counts have
 * hundreds of bits, checked against closed forms on every engine — the long fast path promotes, it
 * never wraps.
 */
class ExactResultsTest {
  private static final String WORKLOAD =
      """
      QUERY trends
      RETURN COUNT(*)
      PATTERN SEQ(A, B+)
      WITHIN 10 minutes

      QUERY events
      RETURN COUNT(B)
      PATTERN SEQ(A, B+)
      WITHIN 10 minutes

      QUERY total
      RETURN SUM(B.x)
      PATTERN SEQ(A, B+)
      WITHIN 10 minutes

      QUERY mean
      RETURN AVG(B.x)
      PATTERN SEQ(A, B+)
      WITHIN 10 minutes
      """;

  @Test
  void countsAndSumsOverALongBurstAreExact() {
    int n = 300;
    List<Event> events = new ArrayList<>();
    events.add(Event.of("A", 0));
    for (int i = 1; i <= n; i++) {
      events.add(Event.of("B", i, "x", new BigDecimal("1.25")));
    }
    // Every non-empty subset of the n B events: 2^n − 1 trends holding n·2^(n−1) B events.
    BigInteger trends = BigInteger.TWO.pow(n).subtract(BigInteger.ONE);
    BigInteger bEvents = BigInteger.valueOf(n).shiftLeft(n - 1);
    Map<String, String> expected =
        Map.of(
            "trends", trends.toString(),
            "events", bEvents.toString(),
            "total",
                new BigDecimal(bEvents)
                    .multiply(new BigDecimal("1.25"))
                    .stripTrailingZeros()
                    .toPlainString(),
            "mean", "1.25");
    for (Engines engine : Engines.values()) {
      assertEquals(expected, values(engine, events), engine.cliName());
    }
  }

  @Test
  void equalTimestampsMultiplyRatherThanDouble() {
    // 150 timestamps with two B events each: a trend takes at most one of each pair (events with
    // equal timestamps are never adjacent), so there are 3^150 − 1 trends.
    List<Event> events = new ArrayList<>();
    events.add(Event.of("A", 0));
    for (int i = 1; i <= 150; i++) {
      events.add(Event.of("B", i, "x", 1));
      events.add(Event.of("B", i, "x", 2));
    }
    String expected = BigInteger.valueOf(3).pow(150).subtract(BigInteger.ONE).toString();
    for (Engines engine : Engines.values()) {
      assertEquals(expected, values(engine, events).get("trends"), engine.cliName());
    }
  }

  private static Map<String, String> values(Engines engine, List<Event> events) {
    Map<String, String> values = new TreeMap<>();
    for (TrendResult r : engine.evaluate(Workload.parse(WORKLOAD), events)) {
      values.put(r.query(), r.value());
    }
    return values;
  }
}
