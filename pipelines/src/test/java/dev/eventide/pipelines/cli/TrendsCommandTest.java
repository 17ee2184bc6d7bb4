package dev.eventide.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.not;

import dev.eventide.testing.waits.Await;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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

  /** The test's queries over its events, results to {@code out}, bad lines to {@code dead}. */
  private Outcome runKeepingDeadLetters(Path out, Path dead) {
    return run(
        "trends",
        "--queries=" + queries,
        "--events=" + events,
        "--out=" + out,
        "--dead-letter=" + dead);
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
  void theWorkloadChangesAtTheTimesOfTheChangesFile() throws IOException {
    Files.writeString(
        events,
        """
        {"type":"Request","time":1,"driver":7,"district":3}
        {"type":"Travel","time":2,"driver":7,"district":3}
        {"type":"Request","time":11,"driver":7,"district":3}
        {"type":"Travel","time":12,"driver":7,"district":3}
        {"type":"Travel","time":13,"driver":7,"district":3}
        """);
    Path changes = temp.resolve("changes.jsonl");
    Files.writeString(
        changes,
        """
        {"time":10,"add":"QUERY pairs RETURN COUNT(*) PATTERN SEQ(Request, Travel) WITHIN 10 ms"}

        {"time":15,"remove":"trips"}
        {"time":16,"remove":"nobody"}
        """);
    Path out = temp.resolve("out.jsonl");
    Path dead = temp.resolve("dead.jsonl");
    Outcome o =
        run(
            "trends",
            "--queries=" + queries,
            "--events=" + events,
            "--workload-changes=" + changes,
            "--out=" + out,
            "--dead-letter=" + dead);
    assertThat(o.err(), o.exitCode(), equalTo(0));
    assertThat(o.err(), containsString("2 workload changes applied, 1 refused (written to"));
    // trips over [0, 10) only (removed at 15, before [10, 20) ends); pairs from 10 on: (R11 T12),
    // (R11 T13).
    assertThat(
        Files.readString(out),
        equalTo(
            "{\"query\":\"trips\",\"group\":{\"district\":3},\"window_start\":0,"
                + "\"window_end\":10,\"value\":\"1\"}\n"
                + "{\"query\":\"pairs\",\"group\":{},\"window_start\":10,"
                + "\"window_end\":20,\"value\":\"2\"}\n"));
    assertThat(
        Files.readString(dead),
        equalTo(
            "{\"change\":{\"time\":16,\"remove\":\"nobody\"},\"reason\":\"no query named"
                + " 'nobody' is running (running: pairs)\"}\n"));

    Outcome stopped =
        run(
            "trends",
            "--queries=" + queries,
            "--events=" + events,
            "--workload-changes=" + changes,
            "--out=" + out);
    assertThat(stopped.exitCode(), equalTo(1));
    assertThat(
        stopped.err(),
        containsString(
            changes
                + ": workload change {\"time\":16,\"remove\":\"nobody\"}: no query named"
                + " 'nobody'"));

    Files.writeString(changes, "{\"time\":10,\"add\":\"QUERY x\"}\n{\"time\":\"soon\"}\n");
    Outcome malformed =
        run(
            "trends",
            "--queries=" + queries,
            "--events=" + events,
            "--workload-changes=" + changes);
    assertThat(malformed.exitCode(), equalTo(2));
    assertThat(malformed.err(), containsString(changes + ":2: a change needs \"time\""));

    Files.writeString(changes, "{\"time\":10,\"remove\":\"trips\"}\n");
    Outcome greta =
        run(
            "trends",
            "--queries=" + queries,
            "--events=" + events,
            "--engine=greta",
            "--workload-changes=" + changes);
    assertThat(greta.exitCode(), equalTo(2));
    assertThat(greta.err(), containsString("--engine greta evaluates a fixed workload"));
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
    Files.writeString(queries, "QUERY q\u200b\nRETURN COUNT(*)\nPATTERN A\nWITHIN 1 s\n");
    Outcome invisible = run("trends", "--queries=" + queries, "--events=" + events);
    assertThat(invisible.exitCode(), equalTo(2));
    assertThat(invisible.err(), containsString(queries + ":1:8: unexpected character U+200B\n"));
    Files.writeString(
        queries, "QUERY q\nRETURN COUNT(*)\nPATTERN A" + "+".repeat(2_000) + "\nWITHIN 1 s\n");
    Outcome pluses = run("trends", "--queries=" + queries, "--events=" + events);
    assertThat(pluses.exitCode(), equalTo(2));
    assertThat(
        pluses.err(),
        containsString(
            queries + ":3:109: patterns nest at most 100 levels deep (each '+' is one)"));
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
    assertThat(o.err(), containsString(queries + ":1:1: query big: pattern AND("));
    assertThat(
        o.err(),
        containsString(
            "needs 64 automaton states; at most 63 are supported (one per event type the pattern"
                + " matches, and AND multiplies the states of its operands)"));
    // An OR of a thousand types: the place, the pattern shortened, and no word of AND.
    List<String> types = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      types.add("T" + i);
    }
    Files.writeString(
        queries,
        "\nQUERY wide\nRETURN COUNT(*)\nPATTERN OR("
            + String.join(", ", types)
            + ")\nWITHIN 1 s\n");
    Outcome wide = run("trends", "--queries=" + queries, "--events=" + events);
    assertThat(wide.exitCode(), equalTo(2));
    assertThat(wide.err(), containsString(queries + ":2:1: query wide: pattern OR(T0, T1, T2"));
    assertThat(
        wide.err(),
        containsString(
            "(5892 characters) needs 1000 automaton states; at most 63 are supported (one per"
                + " event type the pattern matches)"));
    assertThat(wide.err().length(), lessThan(500));
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
  void anEventOfATypeNoQueryReadsIsIgnoredEvenWithAnAttributeNoEventMayCarry() throws IOException {
    Files.writeString(
        events,
        Files.readString(events) + "{\"type\":\"Other\",\"time\":5,\"flag\":true,\"n\":null}\n");
    Path out = temp.resolve("out.jsonl");
    Outcome o = run("trends", "--queries=" + queries, "--events=" + events, "--out=" + out);
    assertThat(o.err(), o.exitCode(), equalTo(0));
    assertThat(o.err(), not(containsString("bad event")));
  }

  @Test
  void runnerFlagsThatWouldBeIgnoredAreUsageErrors() {
    Outcome lateness =
        run("trends", "--queries=" + queries, "--events=" + events, "--allowed-lateness=5s");
    assertThat(lateness.exitCode(), equalTo(2));
    assertThat(
        lateness.err(),
        containsString("--allowed-lateness applies to a pipeline (--runner, --flink-master or"));
    Outcome stream =
        run("trends", "--queries=" + queries, "--events=" + events, "--changes-as-stream");
    assertThat(stream.exitCode(), equalTo(2));
    assertThat(
        stream.err(),
        containsString("--changes-as-stream applies to a pipeline (--runner, --flink-master or"));
    Outcome master =
        run(
            "trends",
            "--queries=" + queries,
            "--events=" + events,
            "--runner=direct",
            "--flink-master=127.0.0.1:8081");
    assertThat(master.exitCode(), equalTo(2));
    assertThat(
        master.err(),
        containsString(
            "--flink-master applies to the Flink runner only, but the runner is DirectRunner"
                + " (from the command line)"));
  }

  @Test
  void unknownEngineAndMissingFilesAreUsageErrors() {
    assertThat(
        run("trends", "--queries=" + queries, "--events=" + events, "--engine=sase").exitCode(),
        equalTo(2));
    Outcome o = run("trends", "--queries=" + temp.resolve("none"), "--events=" + events);
    assertThat(o.exitCode(), equalTo(2));
    assertThat(o.err(), containsString("--queries " + temp.resolve("none") + ": no such file"));
    Outcome directory = run("trends", "--queries=" + queries, "--events=" + temp);
    assertThat(directory.exitCode(), equalTo(2));
    assertThat(directory.err(), containsString("--events " + temp + " is a directory, not a file"));
    assertThat(run("trends", "--queries=" + queries).exitCode(), equalTo(2));
  }

  @Test
  void badJsonLinesAreDeadLettersWithTheirNumberAndReason() throws IOException {
    String good = "{\"type\":\"Travel\",\"time\":5,\"driver\":7,\"district\":3";
    Files.writeString(
        events,
        Files.readString(events)
            + good
            + ",\"speed\":1e400}\n"
            + good
            + "} x\n"
            + good
            + "},\n"
            + good
            + "}"
            + good
            + "}\n"
            + "{\"type\":\"Travel\",\"time\":5,\"time\":6,\"driver\":7,\"district\":3}\n"
            + good
            + ",\"speed\":"
            + "9".repeat(1_200)
            + "}\n");
    Path dead = temp.resolve("dead.jsonl");
    Path out = temp.resolve("out.jsonl");
    Outcome o = runKeepingDeadLetters(out, dead);
    assertThat(o.err(), o.exitCode(), equalTo(0));
    assertThat(o.err(), containsString("4 events, 1 results"));
    assertThat(o.err(), containsString("6 bad event lines written to " + dead));
    List<String> letters = Files.readAllLines(dead);
    assertThat(letters.size(), equalTo(6));
    assertThat(
        letters.get(0),
        containsString("{\"line\":5,\"reason\":\"attribute \\\"speed\\\" is 1e400"));
    for (int i = 1; i < 4; i++) {
      assertThat(
          letters.get(i), containsString("\"line\":" + (5 + i) + ",\"reason\":\"text after"));
    }
    assertThat(
        letters.get(4),
        containsString("{\"line\":9,\"reason\":\"field \\\"time\\\" appears more than once"));
    assertThat(
        letters.get(5),
        containsString(
            "{\"line\":10,\"reason\":\"not valid JSON: Number length (1200) exceeds the maximum"));
    Outcome stopped = run("trends", "--queries=" + queries, "--events=" + events, "--out=" + out);
    assertThat(stopped.exitCode(), equalTo(1));
    assertThat(stopped.err(), containsString(events + ":5: attribute \"speed\" is 1e400, out of"));
  }

  @Test
  void linesAreDecodedOneByOneAndNumberedAsAnEditorDoes() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.writeBytes(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}); // a UTF-8 BOM
    List<String> lines = Files.readAllLines(events);
    bytes.writeBytes((lines.get(0) + "\r\n").getBytes(StandardCharsets.UTF_8));
    bytes.writeBytes(
        "{\"type\":\"Travel\",\"time\":2,\"driver\":\"\u00e9".getBytes(StandardCharsets.UTF_8));
    bytes.write(0xC3); // cut short: not UTF-8
    bytes.writeBytes("\",\"district\":3}\r\n".getBytes(StandardCharsets.UTF_8));
    for (String line : lines.subList(1, lines.size())) {
      bytes.writeBytes((line + "\r\n").getBytes(StandardCharsets.UTF_8));
    }
    // A lone CR inside a line's whitespace neither ends the line nor spoils the event.
    bytes.writeBytes(
        "{\"type\":\"Travel\",\"time\":5,\r\"driver\":7,\"district\":3}\n"
            .getBytes(StandardCharsets.UTF_8));
    bytes.writeBytes("{\"type\":\"Travel\",\"time\":6}\n".getBytes(StandardCharsets.UTF_8));
    Files.write(events, bytes.toByteArray());
    Path dead = temp.resolve("dead.jsonl");
    Path out = temp.resolve("out.jsonl");
    Outcome o = runKeepingDeadLetters(out, dead);
    assertThat(o.err(), o.exitCode(), equalTo(0));
    assertThat(o.err(), containsString("5 events, 1 results"));
    List<String> letters = Files.readAllLines(dead);
    assertThat(letters.size(), equalTo(2));
    assertThat(
        letters.get(0),
        containsString("{\"line\":2,\"reason\":\"not valid UTF-8 (byte 0xC3 at column 38)\""));
    assertThat(letters.get(1), containsString("{\"line\":7,"));
    // Request@1, then driver 7's Travel at 2, 3 and 5 (the CR line): 2^3 - 1 trends.
    assertThat(Files.readString(out), containsString("\"value\":\"7\""));
  }

  @Test
  void aFileInAnotherEncodingIsAUsageErrorAndAQueryFileLineThatIsNotUtf8HasItsNumber()
      throws IOException {
    Path utf16 = temp.resolve("utf16.jsonl");
    Files.writeString(utf16, "\uFEFF" + Files.readString(events), StandardCharsets.UTF_16LE);
    Outcome o = run("trends", "--queries=" + queries, "--events=" + utf16);
    assertThat(o.exitCode(), equalTo(2));
    assertThat(
        o.err(),
        containsString(
            "--events "
                + utf16
                + " is UTF-16 (it starts with a UTF-16 byte order mark); Eventide reads UTF-8"));

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.writeBytes("QUERY q\r\nRETURN COUNT(*)\r\n-- caf".getBytes(StandardCharsets.UTF_8));
    bytes.write(0xE9); // Latin-1
    bytes.writeBytes("\r\nPATTERN A+ WITHIN 1 s\n".getBytes(StandardCharsets.UTF_8));
    Files.write(queries, bytes.toByteArray());
    Outcome q = run("trends", "--queries=" + queries, "--events=" + events);
    assertThat(q.exitCode(), equalTo(2));
    assertThat(q.err(), containsString(queries + ":3: not valid UTF-8 (byte 0xE9 at column 7)"));

    Files.writeString(queries, "QUERY q\r\nRETURN COUNT(*)\rPATTERN A+\r\nWITHIN 1 sec\n");
    Outcome column = run("trends", "--queries=" + queries, "--events=" + events);
    assertThat(column.exitCode(), equalTo(2));
    assertThat(column.err(), containsString(queries + ":3:10: expected a time unit"));
  }

  @Test
  void eventsMayComeFromAPipe() throws Exception {
    Path fifo = temp.resolve("events.fifo");
    Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
    assertThat(Await.exitOf("mkfifo", Duration.ofMinutes(1), mkfifo), equalTo(0));
    String text = Files.readString(events);
    Thread writer =
        new Thread(
            () -> {
              try {
                Files.writeString(fifo, text);
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            },
            "fifo-writer");
    writer.setDaemon(true); // a writer nobody reads from must not keep the test JVM alive
    writer.start();
    Path out = temp.resolve("out.jsonl");
    Outcome o = run("trends", "--queries=" + queries, "--events=" + fifo, "--out=" + out);
    Await.join("the writer of " + fifo, Duration.ofMinutes(1), writer);
    assertThat(o.err(), o.exitCode(), equalTo(0));
    assertThat(Files.readString(out), containsString("\"value\":\"3\""));
  }

  @Test
  void outputsThatWouldOverwriteAnInputOrCannotBeWrittenFailAtOnce() throws IOException {
    String before = Files.readString(events);
    Outcome overwrite =
        run("trends", "--queries=" + queries, "--events=" + events, "--out=" + events);
    assertThat(overwrite.exitCode(), equalTo(2));
    assertThat(
        overwrite.err(),
        containsString(
            "--out " + events + " is also the --events file, which writing it would destroy"));
    Outcome dead =
        run(
            "trends",
            "--queries=" + queries,
            "--events=" + events,
            "--dead-letter=" + temp.resolve(".").resolve(queries.getFileName()));
    assertThat(dead.exitCode(), equalTo(2));
    assertThat(dead.err(), containsString("is also the --queries file"));
    Path both = temp.resolve("both.jsonl");
    Outcome same =
        run(
            "trends",
            "--queries=" + queries,
            "--events=" + events,
            "--out=" + both,
            "--dead-letter=" + temp.resolve("x/../both.jsonl"));
    assertThat(same.exitCode(), equalTo(2));
    assertThat(same.err(), containsString("--out and --dead-letter name the same file"));
    assertThat(Files.readString(events), equalTo(before));
    assertThat(Files.readString(queries).startsWith("QUERY trips"), equalTo(true));

    Path nowhere = temp.resolve("no-such-directory").resolve("out.jsonl");
    Outcome unwritable =
        run("trends", "--queries=" + queries, "--events=" + events, "--out=" + nowhere);
    assertThat(unwritable.exitCode(), equalTo(2));
    assertThat(
        unwritable.err(),
        containsString("--out " + nowhere + ": cannot write it: no such file or directory"));
    Outcome directory =
        run("trends", "--queries=" + queries, "--events=" + events, "--dead-letter=" + temp);
    assertThat(directory.exitCode(), equalTo(2));
    assertThat(directory.err(), containsString("--dead-letter " + temp + " is a directory"));
  }
}
