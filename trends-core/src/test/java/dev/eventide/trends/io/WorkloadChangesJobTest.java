package dev.eventide.trends.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.query.Workload;
import dev.eventide.trends.query.WorkloadChange;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Changes as JSON lines, and a job whose workload changes while it reads its events. */
class WorkloadChangesJobTest {
  private static final Workload WORKLOAD =
      Workload.parse("QUERY q1\nRETURN COUNT(*)\nPATTERN SEQ(A, B+)\nWITHIN 10 ms\n");

  private static final String Q2 =
      "QUERY q2\nRETURN COUNT(*)\nPATTERN SEQ(A, B+)\nWHERE B.x > 1\nWITHIN 10 ms\n";

  private static final String EVENTS =
      """
      {"type":"A","time":1}
      {"type":"B","time":2}
      {"type":"B","time":3,"x":2}
      {"type":"A","time":11}
      {"type":"B","time":12,"x":2}
      {"type":"B","time":13,"x":0}
      {"type":"B","time":14}
      {"type":"A","time":21}
      {"type":"B","time":22,"x":5}
      """;

  @Test
  void readsAndWritesChangesAsJsonLines() {
    WorkloadChange add = WorkloadChangeJson.parse("{\"time\":10,\"add\":\"QUERY q9 ...\"}", 1);
    assertEquals(WorkloadChange.add(10, "QUERY q9 ..."), add);
    assertEquals("{\"time\":10,\"add\":\"QUERY q9 ...\"}", WorkloadChangeJson.format(add));
    WorkloadChange one = WorkloadChangeJson.parse("{\"remove\":\"q3\",\"time\":-5}", 2);
    assertEquals(WorkloadChange.remove(-5, "q3"), one);
    assertEquals("{\"time\":-5,\"remove\":\"q3\"}", WorkloadChangeJson.format(one));
    WorkloadChange two = WorkloadChangeJson.parse("{\"time\":7,\"remove\":[\"q3\",\"q4\"]}", 3);
    assertEquals(WorkloadChange.remove(7, "q3", "q4"), two);
    assertEquals("{\"time\":7,\"remove\":[\"q3\",\"q4\"]}", WorkloadChangeJson.format(two));
  }

  @Test
  void aLineThatIsNotAChangeIsRefusedWithItsLineAndWhy() {
    assertRefused("{\"time\":1}", "line 4: a change has either \"add\" (query text) or \"remove\"");
    assertRefused(
        "{\"time\":1,\"add\":\"x\",\"remove\":\"q\"}",
        "line 4: a change has either \"add\" (query text) or \"remove\"");
    assertRefused("{\"add\":\"x\"}", "line 4: a change needs \"time\"");
    assertRefused("{\"time\":1.5,\"remove\":\"q\"}", "line 4: a change needs \"time\"");
    assertRefused("{\"time\":1,\"remove\":\"q\",\"at\":3}", "line 4: unknown field 'at'");
    assertRefused("{\"time\":1,\"remove\":[]}", "line 4: \"remove\" is a query's name");
    assertRefused("{\"time\":1,\"remove\":[\"q\",\"q\"]}", "line 4: a workload change removes");
    assertRefused("{\"time\":1,\"add\":3}", "line 4: \"add\" must be the queries' text");
    assertRefused("[1]", "line 4: a change is a JSON object");
    assertRefused("{\"time\":", "line 4: not JSON: ");
  }

  @Test
  void theJobAppliesEachChangeAtItsTimeAndSetsRefusedChangesAside() {
    StringWriter out = new StringWriter();
    StringWriter dead = new StringWriter();
    List<WorkloadChange> changes =
        List.of(
            WorkloadChange.remove(15, "q1"),
            WorkloadChange.remove(12, "nobody"),
            WorkloadChange.add(10, Q2));
    TrendJob.Summary summary =
        TrendJob.run(
            WORKLOAD,
            changes,
            Engines.HAMLET,
            TrendJobTest.lines(EVENTS),
            out,
            dead,
            TrendJob.Options.inTimeOrder());
    // q1 over [0, 10): (A1 B2), (A1 B3), (A1 B2 B3); q2 from 10 on, B.x > 1: (A11 B12) in
    // [10, 20), (A21 B22) in [20, 30); q1's [10, 20) ends after its removal at 15.
    assertEquals(
        """
        {"query":"q1","group":{},"window_start":0,"window_end":10,"value":"3"}
        {"query":"q2","group":{},"window_start":10,"window_end":20,"value":"1"}
        {"query":"q2","group":{},"window_start":20,"window_end":30,"value":"1"}
        """,
        out.toString());
    // B at 2 has no x, which only q2 reads, from 10 on; B at 14 lacks it while q2 runs.
    assertEquals(
        """
        {"change":{"time":12,"remove":"nobody"},"reason":"no query named 'nobody' is running\
         (running: q1, q2)"}
        {"line":7,"reason":"event of type B has no attribute 'x', which q2 (WHERE B.x > 1)\
         uses","event":"{\\"type\\":\\"B\\",\\"time\\":14}"}
        """,
        dead.toString());
    assertEquals(1L, summary.badEvents());
    assertEquals(1L, summary.statistics().get("refusedWorkloadChanges"));
    assertEquals(2L, summary.statistics().get("workloadChanges"));
  }

  @Test
  void withoutADeadLetterWriterARefusedChangeStopsTheJobBeforeAnyEvent() {
    StringWriter out = new StringWriter();
    BadChangeException e =
        assertThrows(
            BadChangeException.class,
            () ->
                TrendJob.run(
                    WORKLOAD,
                    List.of(
                        WorkloadChange.add(
                            10, "QUERY q1\nRETURN COUNT(*)\nPATTERN A\nWITHIN 5 ms")),
                    Engines.HAMLET,
                    TrendJobTest.lines(EVENTS),
                    out,
                    null,
                    TrendJob.Options.inTimeOrder()));
    assertEquals(
        "workload change {\"time\":10,\"add\":\"QUERY q1\\nRETURN COUNT(*)\\nPATTERN A\\nWITHIN 5 ms\"}:"
            + " line 1, column 1: a query named 'q1' is already running",
        e.getMessage());
    assertEquals("", out.toString());
  }

  @Test
  void gretaRefusesChanges() {
    assertThrows(
        UnsupportedOperationException.class,
        () ->
            TrendJob.run(
                WORKLOAD,
                List.of(WorkloadChange.add(10, Q2)),
                Engines.GRETA,
                TrendJobTest.lines(EVENTS),
                new StringWriter(),
                null,
                TrendJob.Options.inTimeOrder()));
  }

  private static void assertRefused(String line, String messageStart) {
    BadChangeException e =
        assertThrows(BadChangeException.class, () -> WorkloadChangeJson.parse(line, 4));
    assertEquals(4, e.line());
    if (!e.getMessage().startsWith(messageStart)) {
      throw new AssertionError("expected a message starting " + messageStart + ", was " + e);
    }
  }
}
