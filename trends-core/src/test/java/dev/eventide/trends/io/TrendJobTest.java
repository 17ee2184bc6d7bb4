package dev.eventide.trends.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.trends.Event;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.query.Workload;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TrendJobTest {
  private static final Workload WORKLOAD =
      Workload.parse(
          """
          QUERY q1
          RETURN SUM(Travel.speed)
          PATTERN SEQ(Request, Travel+)
          WHERE Travel.kind = "pool"
          GROUPBY district
          WITHIN 10 ms
          """);

  @Test
  void parsesAnEventWithExactNumbersAndStrings() {
    Event e = EventJson.parse("{\"type\":\"Travel\",\"time\":17,\"speed\":8.50,\"who\":\"x\"}", 1);
    assertEquals("Travel", e.type());
    assertEquals(17, e.time());
    assertEquals(new BigDecimal("8.50"), e.attribute("speed"));
    assertEquals("x", e.attribute("who"));
  }

  @Test
  void rejectsMalformedEventsWithTheLineAndReason() {
    assertEquals(
        "line 3: \"time\" must be an integer number of epoch milliseconds",
        assertThrows(
                BadEventException.class, () -> EventJson.parse("{\"type\":\"A\",\"time\":1.5}", 3))
            .getMessage());
    assertEquals(
        "line 4: \"type\" must be a non-empty string",
        assertThrows(BadEventException.class, () -> EventJson.parse("{\"time\":1}", 4))
            .getMessage());
    assertEquals(
        "line 5: attribute \"x\" must be a number or a string, but was an array",
        assertThrows(
                BadEventException.class,
                () -> EventJson.parse("{\"type\":\"A\",\"time\":1,\"x\":[1]}", 5))
            .getMessage());
    assertEquals(
        "line 6: expected a JSON object, but found 42",
        assertThrows(BadEventException.class, () -> EventJson.parse("42", 6)).getMessage());
  }

  @Test
  void aLineIsOneObjectWithEachFieldOnceAndNothingAfterIt() {
    String event = "{\"type\":\"A\",\"time\":1,\"x\":2}";
    for (String after : new String[] {" x", ",", "]", event, " {}", " 1"}) {
      BadEventException e =
          assertThrows(BadEventException.class, () -> EventJson.parse(event + after, 7), after);
      assertEquals(7, e.line());
      assertEquals(
          "text after the event's JSON object at column "
              + (event.length() + after.indexOf(after.strip()) + 1)
              + ": one event per line, and nothing else on it",
          e.reason());
    }
    assertEquals(new BigDecimal(2), EventJson.parse(" " + event + " \t\r", 1).attribute("x"));
    for (String twice :
        new String[] {
          "{\"type\":\"A\",\"time\":\"x\",\"time\":1}",
          "{\"type\":\"A\",\"type\":\"B\",\"time\":1}",
          "{\"type\":\"A\",\"time\":1,\"x\":1,\"x\":2}"
        }) {
      BadEventException e = assertThrows(BadEventException.class, () -> EventJson.parse(twice, 2));
      assertTrue(
          e.reason().matches("field \"(time|type|x)\" appears more than once|\"time\".*"),
          e.reason());
    }
  }

  @Test
  void anEventOfATypeNoQueryReadsIsIgnoredWhateverItsAttributesHold() {
    String line =
        "{\"type\":\"Other\",\"flag\":true,\"nested\":[1,{\"a\":[2]}],\"n\":1e400,"
            + "\"time\":1,\"kept\":\"x\"}";
    Event ignored = EventJson.parse(line, 3, type -> !type.equals("Other"));
    assertEquals("Other", ignored.type());
    assertEquals(1, ignored.time());
    assertEquals(Map.of("kept", "x"), ignored.attributes());
    BadEventException read =
        assertThrows(BadEventException.class, () -> EventJson.parse(line, 3, type -> true));
    assertEquals("attribute \"flag\" must be a number or a string, but was true", read.reason());
    BadEventException twice =
        assertThrows(
            BadEventException.class,
            () ->
                EventJson.parse(
                    "{\"type\":\"Other\",\"time\":1,\"f\":true,\"f\":1}", 4, type -> false));
    assertEquals("field \"f\" appears more than once", twice.reason());
    // Through the workload's schema: Other is read by no query of it.
    EventSchema schema =
        EventSchema.of(
            Workload.parse(
                "QUERY q RETURN COUNT(*) PATTERN A+ WITHIN 10 seconds SLIDE 10 seconds"));
    assertEquals("Other", TrendJob.parseEvent(new TextLines.Line(7, line, null), schema).type());
  }

  @Test
  void numbersBeyondADoublesRangeAreBadLinesAndOthersStayExact() {
    for (String number : new String[] {"1e400", "-1e309", "1e-400", "2E+308", "1e999999999"}) {
      BadEventException e =
          assertThrows(
              BadEventException.class,
              () -> EventJson.parse("{\"type\":\"A\",\"time\":1,\"speed\":" + number + "}", 9),
              number);
      assertEquals(
          "attribute \"speed\" is "
              + number
              + ", out of the range of numbers an event may carry (0, or a magnitude from 4.9E-324"
              + " to 1.7976931348623157E308)",
          e.reason());
    }
    for (String number :
        new String[] {"0", "0e999999", "1e308", "-1.7976931348623157E308", "4.9e-324", "0.10"}) {
      Event e = EventJson.parse("{\"type\":\"A\",\"time\":1,\"speed\":" + number + "}", 1);
      assertEquals(0, new BigDecimal(number).compareTo((BigDecimal) e.attribute("speed")), number);
    }
    assertEquals(
        new BigDecimal("0.10"),
        EventJson.parse("{\"type\":\"A\",\"time\":1,\"speed\":0.10}", 1).attribute("speed"));
    BadEventException time =
        assertThrows(
            BadEventException.class,
            () -> EventJson.parse("{\"type\":\"A\",\"time\":9223372036854775808}", 4));
    assertEquals(
        "\"time\" 9223372036854775808 is out of the range of epoch milliseconds"
            + " (-9223372036854775808 to 9223372036854775807)",
        time.reason());
    // Beyond Jackson's limit of 1,000 digits (an error without a location): a bad line too.
    for (String field : List.of("\"speed\":", "\"time\":")) {
      String line = "{\"type\":\"A\"," + field + "9".repeat(1_200) + "}";
      BadEventException digits =
          assertThrows(BadEventException.class, () -> EventJson.parse(line, 6), field);
      assertEquals(6, digits.line(), digits.getMessage());
      assertEquals(
          "not valid JSON: Number length (1200) exceeds the maximum length (1000)",
          digits.reason());
    }
  }

  @Test
  void theSchemaNamesTheQueryAndClauseThatNeedAnAttribute() {
    EventSchema schema = EventSchema.of(WORKLOAD);
    assertEquals(
        "event of type Travel has no attribute 'district', which q1 (GROUPBY) uses",
        schema.problemWith(Event.of("Travel", 1, "speed", 1, "kind", "pool")));
    assertEquals(
        "attribute 'speed' of a Travel event must be a number for q1 (RETURN SUM(Travel.speed)),"
            + " but was the string \"fast\"",
        schema.problemWith(Event.of("Travel", 1, "speed", "fast", "kind", "x", "district", 1)));
    assertEquals(
        null, schema.problemWith(Event.of("Travel", 1, "speed", 2, "kind", "x", "district", 1)));
    assertEquals(null, schema.problemWith(Event.of("Other", 1)), "types no query reads pass");
  }

  private static final String UNORDERED =
      """
      {"type":"Travel","time":3,"speed":2.5,"kind":"pool","district":1}
      {"type":"Request","time":1,"district":1}

      {"type":"Travel","time":2,"speed":1,"kind":"pool","district":1}
      {"type":"Travel","time":4,"speed":7,"kind":"solo","district":1}
      """;

  // Trends (r,t2), (r,t3), (r,t2,t3): 1 + 2.5 + 3.5.
  private static final String UNORDERED_RESULT =
      "{\"query\":\"q1\",\"group\":{\"district\":1},\"window_start\":0,\"window_end\":10,"
          + "\"value\":\"7\"}\n";

  private static TrendJob.Summary run(String events, StringWriter out, TrendJob.Options options) {
    return TrendJob.run(WORKLOAD, Engines.HAMLET, lines(events), out, null, options);
  }

  @Test
  void evaluatesEventsOutOfOrderWithinTheMaxDelayInTimeOrder() {
    StringWriter out = new StringWriter();
    TrendJob.Summary summary = run(UNORDERED, out, TrendJob.Options.inTimeOrder().withMaxDelay(2));
    assertEquals(UNORDERED_RESULT, out.toString());
    assertEquals(4, summary.events());
    assertEquals(1, summary.results());
  }

  @Test
  void sortsAWholeFileInAnyOrder() {
    StringWriter out = new StringWriter();
    run(UNORDERED, out, TrendJob.Options.inTimeOrder().sorted());
    assertEquals(UNORDERED_RESULT, out.toString());
  }

  @Test
  void anEventFurtherOutOfOrderThanTheMaxDelayStopsTheRunAtItsLine() {
    EventOrderException inOrder =
        assertThrows(
            EventOrderException.class,
            () -> run(UNORDERED, new StringWriter(), TrendJob.Options.inTimeOrder()));
    assertEquals(2, inOrder.line());
    assertEquals(
        "event at time 1 comes 2 ms after an event at time 3, more than the allowed delay of 0"
            + " ms; allow more with --max-delay, or read the whole file with --sort",
        inOrder.reason());
    EventOrderException delayed =
        assertThrows(
            EventOrderException.class,
            () ->
                run(UNORDERED, new StringWriter(), TrendJob.Options.inTimeOrder().withMaxDelay(1)));
    assertEquals(2, delayed.line());
  }

  @Test
  void reportsProgressOnLongRunsAndTheStateStaysBoundedByTheOpenWindows() {
    // 200,000 events over 2,000 windows of 10 ms, in time order: a report per 1,024 events read
    // once the interval (1 ms) has passed, and the windows close as the run goes.
    StringBuilder events = new StringBuilder();
    for (int t = 0; t < 200_000; t++) {
      String type = t % 10 == 0 ? "Request" : "Travel";
      events
          .append("{\"type\":\"")
          .append(type)
          .append("\",\"time\":")
          .append(t / 10)
          .append(",\"speed\":1,\"kind\":\"pool\",\"district\":1}\n");
    }
    java.util.List<TrendJob.Progress> reports = new java.util.ArrayList<>();
    TrendJob.Summary summary =
        run(
            events.toString(),
            new StringWriter(),
            TrendJob.Options.inTimeOrder().withProgress(reports::add, 1));
    assertEquals(200_000, summary.events());
    org.junit.jupiter.api.Assertions.assertFalse(reports.isEmpty());
    TrendJob.Progress last = reports.get(reports.size() - 1);
    org.junit.jupiter.api.Assertions.assertTrue(
        last.windowsClosed() > 0, "windows close while events are read: " + last);
  }

  @Test
  void timesWhoseWindowsLeaveTheLongRangeAreBadLines() {
    String events = "{\"type\":\"Request\",\"time\":" + (Long.MAX_VALUE - 5) + ",\"district\":1}\n";
    BadEventException e =
        assertThrows(
            BadEventException.class,
            () -> run(events, new StringWriter(), TrendJob.Options.inTimeOrder()));
    assertEquals(1, e.line());
    org.junit.jupiter.api.Assertions.assertTrue(
        e.reason().contains("end of the range of epoch milliseconds"), e.reason());
  }

  @Test
  void aBadLineStopsTheJobOrGoesToTheDeadLetterWithItsReason() {
    String events =
        """
        {"type":"Request","time":1,"district":1}
        {"type":"Travel","time":2,"kind":"pool","district":1}
        {"type":"Travel","time":3,"speed":1,"kind":"pool","district":1}
        """;
    BadEventException e =
        assertThrows(
            BadEventException.class,
            () ->
                TrendJob.run(
                    WORKLOAD,
                    Engines.GRETA,
                    lines(events),
                    new StringWriter(),
                    null,
                    TrendJob.Options.inTimeOrder()));
    assertEquals(2, e.line());

    StringWriter dead = new StringWriter();
    StringWriter out = new StringWriter();
    TrendJob.Summary summary =
        TrendJob.run(
            WORKLOAD, Engines.GRETA, lines(events), out, dead, TrendJob.Options.inTimeOrder());
    assertEquals(1, summary.badEvents());
    assertEquals(2, summary.events());
    assertEquals(
        "{\"line\":2,\"reason\":\"event of type Travel has no attribute 'speed', which q1"
            + " (RETURN SUM(Travel.speed)) uses\",\"event\":\"{\\\"type\\\":\\\"Travel\\\","
            + "\\\"time\\\":2,\\\"kind\\\":\\\"pool\\\",\\\"district\\\":1}\"}\n",
        dead.toString());
    assertEquals(true, out.toString().contains("\"value\":\"1\""));
  }

  @Test
  void groupValuesKeepTheirJsonTypeAndCountsStayExact() {
    Workload w =
        Workload.parse("QUERY q RETURN COUNT(*) PATTERN A+ GROUPBY d, name WITHIN 1000 ms");
    StringBuilder events = new StringBuilder();
    for (int t = 0; t < 80; t++) {
      events.append("{\"type\":\"A\",\"time\":").append(t).append(",\"d\":2.0,\"name\":\"n\"}\n");
    }
    StringWriter out = new StringWriter();
    TrendJob.run(
        w, Engines.HAMLET, lines(events.toString()), out, null, TrendJob.Options.inTimeOrder());
    // 2^80 - 1 non-empty subsequences with increasing times: beyond any long.
    assertEquals(
        "{\"query\":\"q\",\"group\":{\"d\":2,\"name\":\"n\"},\"window_start\":0,"
            + "\"window_end\":1000,\"value\":\"1208925819614629174706175\"}\n",
        out.toString());
  }

  static TextLines lines(String text) {
    try {
      return TextLines.open(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
