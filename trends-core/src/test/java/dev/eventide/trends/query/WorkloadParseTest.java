package dev.eventide.trends.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WorkloadParseTest {

  @Test
  void parsesTheDesignExampleWithComments() {
    Workload w =
        Workload.parse(
            """
            QUERY q1
            RETURN COUNT(*)                       -- or COUNT(E), SUM(E.a), ...
            PATTERN SEQ(Request, Travel+, NOT Pickup)   -- SEQ, Kleene +, NOT, OR, AND
            WHERE [driver, rider] AND Travel.speed < 10 AND Travel.speed < NEXT(Travel).speed
            GROUPBY district
            WITHIN 30 minutes SLIDE 10 minutes
            """);
    Query q = w.queries().get(0);
    assertEquals("q1", q.name());
    assertEquals(Aggregation.countTrends(), q.aggregation());
    assertEquals("SEQ(Request, Travel+, NOT Pickup)", q.pattern().toString());
    assertEquals(List.of("driver", "rider"), q.equivalence());
    assertEquals(
        List.of(
            new Predicate.OnEvent("Travel", "speed", Op.LT, new BigDecimal("10")),
            new Predicate.OnAdjacent("Travel", "speed", Op.LT, "speed")),
        q.predicates());
    assertEquals(List.of("district"), q.groupBy());
    assertEquals(30 * 60_000L, q.within());
    assertEquals(10 * 60_000L, q.slide());
    assertEquals(1, q.line());
  }

  @Test
  void readsDurationsAsTheCommandLineDoes() {
    Workload w =
        Workload.parse(
            """
            QUERY a RETURN COUNT(*) PATTERN A+ WITHIN 1d SLIDE 5m
            QUERY b RETURN COUNT(*) PATTERN A+ WITHIN 2 days SLIDE 1 Day
            """);
    assertEquals(86_400_000L, w.queries().get(0).within());
    assertEquals(300_000L, w.queries().get(0).slide());
    assertEquals(172_800_000L, w.queries().get(1).within());
    assertEquals(86_400_000L, w.queries().get(1).slide());
  }

  @Test
  void parsesEveryAggregateAndPatternForm() {
    Workload w =
        Workload.parse(
            """
            QUERY a RETURN COUNT(B) PATTERN (SEQ(A, B+))+ WITHIN 5 s

            QUERY b RETURN SUM(B.x) PATTERN OR(A, SEQ(A, B)) WITHIN 1 h SLIDE 30 min
            QUERY c RETURN AVG(B.x) PATTERN AND(SEQ(A, B+), SEQ(A+, B)) WITHIN 100 ms
            QUERY d RETURN MIN(B.x) PATTERN SEQ(NOT C, A, NOT D, B+) WHERE C.s = "red" WITHIN 2 hours
            QUERY e RETURN MAX(A.x) PATTERN A+ WHERE A.x >= -1.5 AND A.x != NEXT(A).y WITHIN 1 second
            """);
    assertEquals(5, w.queries().size());
    assertEquals("(SEQ(A, B+))+", w.queries().get(0).pattern().toString());
    assertEquals(Aggregation.Kind.COUNT_EVENTS, w.queries().get(0).aggregation().kind());
    assertEquals(3_600_000L, w.queries().get(1).within());
    assertEquals(1_800_000L, w.queries().get(1).slide());
    assertEquals("AND(SEQ(A, B+), SEQ(A+, B))", w.queries().get(2).pattern().toString());
    assertEquals(
        new Predicate.OnEvent("C", "s", Op.EQ, "red"), w.queries().get(3).predicates().get(0));
    assertEquals(
        new Predicate.OnEvent("A", "x", Op.GE, new BigDecimal("-1.5")),
        w.queries().get(4).predicates().get(0));
    assertEquals(100L, w.queries().get(2).slide(), "SLIDE defaults to WITHIN");
    assertEquals(4, w.queries().get(2).line());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "missing paren | QUERY q RETURN COUNT(*) PATTERN SEQ(A, B+ WITHIN 1 s"
            + " | 1:43 | expected ',' or ')' but found 'WITHIN'",
        "unknown aggregate | QUERY q RETURN TOTAL(A.x) PATTERN A WITHIN 1 s"
            + " | 1:16 | expected COUNT, SUM, AVG, MIN or MAX but found 'TOTAL'",
        "unknown type in RETURN | QUERY q RETURN SUM(C.x) PATTERN SEQ(A, B+) WITHIN 1 s"
            + " | 1:20 | unknown event type 'C' in RETURN: the pattern of q matches A, B",
        "type only negated in RETURN | QUERY q RETURN COUNT(C) PATTERN SEQ(A, NOT C, B) WITHIN 1 s"
            + " | 1:22 | unknown event type 'C' in RETURN: the pattern of q matches A, B",
        "unknown type in WHERE | QUERY q RETURN COUNT(*) PATTERN A WHERE Z.x < 1 WITHIN 1 s"
            + " | 1:41 | unknown event type 'Z' in WHERE: the pattern of q matches A",
        "NEXT on a non-Kleene type | QUERY q RETURN COUNT(*) PATTERN SEQ(A, B+)"
            + " WHERE A.x < NEXT(A).x WITHIN 1 s"
            + " | 1:61 | NEXT(A) needs a Kleene type, but A+ does not occur in the pattern of q",
        "NEXT of another type | QUERY q RETURN COUNT(*) PATTERN SEQ(A+, B+)"
            + " WHERE A.x < NEXT(B).x WITHIN 1 s"
            + " | 1:62 | NEXT(B) must name the type on the left, A: adjacent-event predicates"
            + " compare consecutive events of one Kleene run",
        "SLIDE larger than WITHIN | QUERY q RETURN COUNT(*) PATTERN A WITHIN 1 s SLIDE 2 s"
            + " | 1:52 | SLIDE (2000 ms) must not be larger than WITHIN (1000 ms)",
        "too many overlapping windows | QUERY q RETURN COUNT(*) PATTERN A WITHIN 1 h SLIDE 1 s"
            + " | 1:52 | WITHIN (3600000 ms) spans 3600 windows of SLIDE (1000 ms); every window is"
            + " evaluated on its own, so at most 1000 may overlap",
        "overlapping windows near the long range | QUERY q RETURN COUNT(*) PATTERN A"
            + " WITHIN 9223372036854775807 ms SLIDE 2 ms"
            + " | 1:71 | WITHIN (9223372036854775807 ms) spans 4611686018427387904 windows of SLIDE"
            + " (2 ms); every window is evaluated on its own, so at most 1000 may overlap",
        "zero window | QUERY q RETURN COUNT(*) PATTERN A WITHIN 0 s"
            + " | 1:42 | a window length must be positive, but was 0",
        "unknown unit | QUERY q RETURN COUNT(*) PATTERN A WITHIN 3 weeks"
            + " | 1:44 | expected a time unit: ms (millisecond[s]), s (second[s]), m (min, minute[s]), h (hour[s]) or d (day[s]) but found 'weeks'",
        "NOT outside SEQ | QUERY q RETURN COUNT(*) PATTERN OR(A, NOT B) WITHIN 1 s"
            + " | 1:39 | NOT is allowed only as an item of SEQ(...)",
        "only NOT | QUERY q RETURN COUNT(*) PATTERN NOT A WITHIN 1 s"
            + " | 1:33 | a pattern cannot be only NOT; use NOT inside SEQ(...)",
        "SEQ of only NOT | QUERY q RETURN COUNT(*) PATTERN SEQ(NOT A) WITHIN 1 s"
            + " | 1:33 | SEQ needs at least one item that is not NOT",
        "Kleene on NOT | QUERY q RETURN COUNT(*) PATTERN SEQ(A, NOT B+) WITHIN 1 s"
            + " | 1:45 | NOT takes one event type; a Kleene plus cannot follow it",
        "OR of one | QUERY q RETURN COUNT(*) PATTERN OR(A) WITHIN 1 s"
            + " | 1:33 | OR needs at least two operands",
        "keyword as type | QUERY q RETURN COUNT(*) PATTERN SEQ(A, WITHIN) WITHIN 1 s"
            + " | 1:40 | expected an event type, SEQ, OR, AND or '(' but found 'WITHIN'",
        "bad character | QUERY q RETURN COUNT(*) PATTERN A; WITHIN 1 s"
            + " | 1:34 | unexpected character ';' (U+003B)",
        "invisible character | QUERY q\u200b RETURN COUNT(*) PATTERN A WITHIN 1 s"
            + " | 1:8 | unexpected character U+200B",
        "character beyond the BMP | QUERY q RETURN COUNT(*) PATTERN Trav\ud83d\ude00el WITHIN 1 s"
            + " | 1:37 | unexpected character '\ud83d\ude00' (U+1F600)",
        "missing WITHIN | QUERY q RETURN COUNT(*) PATTERN A"
            + " | 1:34 | expected 'WITHIN' but found the end of the file",
        "bad comparison | QUERY q RETURN COUNT(*) PATTERN A WHERE A.x ~ 1 WITHIN 1 s"
            + " | 1:45 | unexpected character '~' (U+007E)",
        "empty file | -- nothing here | 1:16 | expected 'QUERY' but found no query",
        "window too long for a long | QUERY q RETURN COUNT(*) PATTERN A WITHIN"
            + " 99999999999999999999 ms | 1:42 | a window length must be at most"
            + " 9223372036854775807 units",
        "window too long in its unit | QUERY q RETURN COUNT(*) PATTERN A WITHIN"
            + " 9223372036854775807 s | 1:42 | 9223372036854775807 s is longer than the longest"
            + " window, 9223372036854775807 ms (about 292 million years)",
        "slide too long | QUERY q RETURN COUNT(*) PATTERN A WITHIN 1 s SLIDE 9999999999999 h"
            + " | 1:52 | 9999999999999 h is longer than the longest window, 9223372036854775807 ms"
            + " (about 292 million years)",
      })
  void rejectsWithLineColumnAndReason(String name, String text, String where, String message) {
    QueryException e = assertThrows(QueryException.class, () -> Workload.parse(text));
    assertEquals(where, e.line() + ":" + e.column(), e.getMessage());
    assertEquals("line " + e.line() + ", column " + e.column() + ": " + message, e.getMessage());
  }

  @Test
  void rejectsPatternsNestedBeyondTheLimitWithTheirPlace() {
    for (String open : List.of("SEQ(", "(", "OR(A, ", "AND(B, ")) {
      String ok = "QUERY q RETURN COUNT(*) PATTERN " + nested(open, 99) + " WITHIN 1 s";
      assertEquals(1, Workload.parse(ok).queries().size(), open);
      for (int depth : List.of(101, 100_000)) {
        String text = "QUERY q RETURN COUNT(*) PATTERN " + nested(open, depth) + " WITHIN 1 s";
        QueryException e = assertThrows(QueryException.class, () -> Workload.parse(text));
        // The 101st level: the item inside the 100th '('.
        int column = 33 + 99 * open.length() + open.indexOf('(') + 1;
        assertEquals(
            "line 1, column " + column + ": patterns nest at most 100 levels deep",
            e.getMessage(),
            open);
      }
    }
  }

  @Test
  void rejectsKleenePlusesBeyondTheNestingLimitWithTheirPlace() {
    String ok = "QUERY q RETURN COUNT(*) PATTERN A" + "+".repeat(99) + " WITHIN 1 s";
    assertEquals(1, Workload.parse(ok).queries().size());
    for (int pluses : List.of(100, 2_000)) {
      String text = "QUERY q RETURN COUNT(*) PATTERN A" + "+".repeat(pluses) + " WITHIN 1 s";
      QueryException e = assertThrows(QueryException.class, () -> Workload.parse(text));
      // PATTERN's one level, then the 100th '+' (column 34 holds the first).
      assertEquals(
          "line 1, column 133: patterns nest at most 100 levels deep (each '+' is one)",
          e.getMessage());
    }
  }

  /** {@code depth} levels of {@code open} around the type A, closed again. */
  private static String nested(String open, int depth) {
    return open.repeat(depth) + "A" + ")".repeat(depth);
  }

  @Test
  void reportsTheLineOfAProblemOnLaterLines() {
    QueryException e =
        assertThrows(
            QueryException.class,
            () ->
                Workload.parse(
                    """
                    QUERY q1
                    RETURN COUNT(*)
                    PATTERN A
                    WITHIN 1 s

                    QUERY q1
                    RETURN COUNT(*)
                    PATTERN B
                    WITHIN 1 s
                    """));
    assertEquals("line 6, column 1: a second query named 'q1'", e.getMessage());
  }

  @Test
  void rejectsAGroupByAttributeTwice() {
    QueryException e =
        assertThrows(
            QueryException.class,
            () -> Workload.parse("QUERY q RETURN COUNT(*) PATTERN A GROUPBY d, d WITHIN 1 s"));
    assertEquals("line 1, column 46: attribute 'd' appears twice in GROUPBY", e.getMessage());
  }
}
