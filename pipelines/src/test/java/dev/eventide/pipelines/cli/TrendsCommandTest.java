package dev.eventide.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class TrendsCommandTest {
  @TempDir Path temp;
  private Path queries;
  private Path events;

  private record Outcome(int exitCode, String err) {}

  private static Outcome run(String... args) {
    CommandLine cli = EventideCli.commandLine();
    StringWriter err = new StringWriter();
    cli.setErr(new PrintWriter(err));
    int code = cli.execute(args);
    assertThat(err.toString(), not(containsString("\tat ")));
    return new Outcome(code, err.toString());
  }

  @BeforeEach
  void files() throws IOException {
    queries = temp.resolve("q.txt");
    Files.writeString(
        queries,
        """
        QUERY trips
        RETURN COUNT(*)
        PATTERN SEQ(Request, Travel+)
        WHERE [driver]
        GROUPBY district
        WITHIN 10 ms
        """);
    events = temp.resolve("events.jsonl");
    Files.writeString(
        events,
        """
        {"type":"Request","time":1,"driver":7,"district":3}
        {"type":"Travel","time":2,"driver":7,"district":3}
        {"type":"Travel","time":3,"driver":7,"district":3}
        {"type":"Travel","time":4,"driver":8,"district":3}
        """);
  }

  @Test
  void everyEngineWritesTheSameResults() throws IOException {
    for (String engine : new String[] {"hamlet", "hamlet-static", "unshared", "greta"}) {
      Path out = temp.resolve(engine + ".jsonl");
      Outcome o =
          run(
              "trends",
              "--queries=" + queries,
              "--events=" + events,
              "--out=" + out,
              "--engine=" + engine);
      assertThat(o.err(), o.exitCode(), equalTo(0));
      assertThat(o.err(), containsString("4 events, 1 results"));
      assertThat(
          Files.readString(out),
          equalTo(
              "{\"query\":\"trips\",\"group\":{\"district\":3},\"window_start\":0,"
                  + "\"window_end\":10,\"value\":\"3\"}\n"));
    }
  }

  @Test
  void eventsOutOfOrderNeedMaxDelayOrSort() throws IOException {
    Files.writeString(
        events,
        """
        {"type":"Travel","time":3,"driver":7,"district":3}
        {"type":"Request","time":1,"driver":7,"district":3}
        {"type":"Travel","time":4,"driver":7,"district":3}
        """);
    Outcome strict = run("trends", "--queries=" + queries, "--events=" + events);
    assertThat(strict.exitCode(), equalTo(1));
    assertThat(
        strict.err(),
        containsString(
            events
                + ":2: event at time 1 comes 2 ms after an event at time 3, more than the"
                + " allowed delay of 0 ms; allow more with --max-delay"));
    for (String order : new String[] {"--max-delay=2ms", "--sort"}) {
      Path out = temp.resolve("ordered.jsonl");
      Outcome o =
          run("trends", "--queries=" + queries, "--events=" + events, "--out=" + out, order);
      assertThat(o.err(), o.exitCode(), equalTo(0));
      assertThat(Files.readString(out), containsString("\"value\":\"3\""));
    }
    assertThat(
        run("trends", "--queries=" + queries, "--events=" + events, "--max-delay=soon").exitCode(),
        equalTo(2));
  }

  @Test
  void aBadQueryFileGivesLineColumnAndExitCode2() throws IOException {
    Files.writeString(queries, "QUERY q\nRETURN COUNT(*)\nPATTERN SEQ(A, B+\nWITHIN 1 s\n");
    Outcome o = run("trends", "--queries=" + queries, "--events=" + events);
    assertThat(o.exitCode(), equalTo(2));
    assertThat(o.err(), containsString(queries + ":4:1: expected ',' or ')' but found 'WITHIN'"));
  }

  @Test
  void deepNestingAndHugeNumbersInAQueryFileAreUsageErrorsWithTheirPlace() throws IOException {
    Files.writeString(
        queries,
        "QUERY q\nRETURN COUNT(*)\nPATTERN "
            + "SEQ(".repeat(20_000)
            + "A"
            + ")".repeat(20_000)
            + "\nWITHIN 1 s\n");
    Outcome deep = run("trends", "--queries=" + queries, "--events=" + events);
    assertThat(deep.exitCode(), equalTo(2));
    assertThat(
        deep.err(), containsString(queries + ":3:409: patterns nest at most 100 levels deep"));
    assertThat(deep.err(), not(containsString("\tat ")));
    Files.writeString(
        queries, "QUERY q\nRETURN COUNT(*)\nPATTERN A\nWITHIN 99999999999999999999 ms\n");
    Outcome huge = run("trends", "--queries=" + queries, "--events=" + events);
    assertThat(huge.exitCode(), equalTo(2));
    assertThat(
        huge.err(),
        containsString(
            queries + ":4:8: a window length must be at most 9223372036854775807 units"));
  }

  @Test
  void aPatternTooLargeToEvaluateIsAUsageError() throws IOException {
    String eight = "SEQ(A+, A+, A+, A+, A+, A+, A+, A+)";
    Files.writeString(
        queries,
        "QUERY big RETURN COUNT(*) PATTERN AND(" + eight + ", " + eight + ") WITHIN 1 s\n");
    Outcome o = run("trends", "--queries=" + queries, "--events=" + events);
    assertThat(o.exitCode(), equalTo(2));
    assertThat(o.err(), containsString("query big: pattern AND("));
    assertThat(o.err(), containsString("needs 64 automaton states; at most 63 are supported"));
  }

  @Test
  void aBadEventLineStopsWithItsNumberUnlessDeadLettered() throws IOException {
    Files.writeString(
        events, Files.readString(events) + "{\"type\":\"Travel\",\"time\":5,\"district\":3}\n");
    Outcome stopped =
        run("trends", "--queries=" + queries, "--events=" + events, "--out=" + temp.resolve("o"));
    assertThat(stopped.exitCode(), equalTo(1));
    assertThat(
        stopped.err(),
        containsString(
            events
                + ":5: event of type Travel has no attribute 'driver', which trips (WHERE"
                + " [driver]) uses"));

    Path dead = temp.resolve("dead.jsonl");
    Outcome kept =
        run(
            "trends",
            "--queries=" + queries,
            "--events=" + events,
            "--out=" + temp.resolve("o"),
            "--dead-letter=" + dead);
    assertThat(kept.err(), kept.exitCode(), equalTo(0));
    assertThat(kept.err(), containsString("1 bad event lines written to " + dead));
    assertThat(Files.readString(dead), containsString("\"line\":5"));
  }

  @Test
  void unknownEngineAndMissingFilesAreUsageErrors() {
    assertThat(
        run("trends", "--queries=" + queries, "--events=" + events, "--engine=sase").exitCode(),
        equalTo(2));
    Outcome o = run("trends", "--queries=" + temp.resolve("none"), "--events=" + events);
    assertThat(o.exitCode(), equalTo(2));
    assertThat(o.err(), containsString("no query file"));
    assertThat(run("trends", "--queries=" + queries).exitCode(), equalTo(2));
  }
}
