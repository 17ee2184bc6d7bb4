package dev.eventide.trends.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.eventide.trends.Event;
import dev.eventide.trends.query.Workload;
import org.junit.jupiter.api.Test;

class EventSchemaTest {
  /**
   * Three queries read T alike; each reason names the first query, in workload order, to need it.
   */
  private static final EventSchema SCHEMA =
      EventSchema.of(
          Workload.parse(
              """
              QUERY first
              RETURN SUM(T.volume)
              PATTERN T+
              GROUPBY exchange
              WITHIN 1 minute

              QUERY second
              RETURN COUNT(*)
              PATTERN SEQ(S, T+)
              WHERE T.volume > 10 AND T.venue = 'X'
              GROUPBY exchange
              WITHIN 1 minute

              QUERY third
              RETURN SUM(T.volume)
              PATTERN T+
              WHERE T.volume > 0
              GROUPBY exchange
              WITHIN 1 minute
              """));

  @Test
  void anEventWithWhatEveryQueryNeedsHasNoProblem() {
    assertNull(SCHEMA.problemWith(Event.of("T", 5, "exchange", "N", "volume", 3, "venue", "X")));
    assertNull(SCHEMA.problemWith(Event.of("U", 5)), "a type no query reads");
  }

  @Test
  void theReasonNamesTheFirstQueryThatNeedsTheAttribute() {
    assertEquals(
        "event of type T has no attribute 'exchange', which first (GROUPBY) uses",
        SCHEMA.problemWith(Event.of("T", 5, "volume", 3, "venue", "X")));
    assertEquals(
        "attribute 'volume' of a T event must be a number for first (RETURN SUM(T.volume)), but"
            + " was the string \"many\"",
        SCHEMA.problemWith(Event.of("T", 5, "exchange", "N", "volume", "many", "venue", "X")));
    assertEquals(
        "event of type T has no attribute 'venue', which second (WHERE T.venue = \"X\") uses",
        SCHEMA.problemWith(Event.of("T", 5, "exchange", "N", "volume", 3)));
    assertEquals(
        "attribute 'venue' of a T event must be a string for second (WHERE T.venue = \"X\"), but"
            + " was the number 7",
        SCHEMA.problemWith(Event.of("T", 5, "exchange", "N", "volume", 3, "venue", 7)));
  }
}
