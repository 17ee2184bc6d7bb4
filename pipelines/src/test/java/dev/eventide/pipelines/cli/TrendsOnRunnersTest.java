package dev.eventide.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code eventide trends --runner}: the same query and event files give the same result file on the
 * in-process core (sorted), the DirectRunner and embedded Flink, on the examples and on random
 * workloads over shuffled streams.
 */
class TrendsOnRunnersTest {
  @TempDir Path temp;

  private static String run(String... args) {
    CommandLine cli = EventideCli.commandLine();
    StringWriter err = new StringWriter();
    cli.setErr(new PrintWriter(err));
    int code = cli.execute(args);
    assertThat(err.toString(), code, equalTo(0));
    assertThat(err.toString(), err.toString(), org.hamcrest.Matchers.not(containsString("\tat ")));
    return err.toString();
  }

  private List<String> sortedLines(Path file) throws IOException {
    List<String> lines = new ArrayList<>(Files.readAllLines(file, StandardCharsets.UTF_8));
    Collections.sort(lines);
    return lines;
  }

  private void assertSameOnEveryRunner(Path queries, Path events, String name, String... extra)
      throws IOException {
    Path core = temp.resolve(name + "-core.jsonl");
    List<String> inProcess =
        new ArrayList<>(
            List.of(
                "trends", "--queries=" + queries, "--events=" + events, "--sort", "--out=" + core));
    inProcess.addAll(List.of(extra));
    run(inProcess.toArray(String[]::new));
    List<String> expected = sortedLines(core);
    assertThat(expected.size(), greaterThan(0));
    for (String[] runner :
        new String[][] {{"--runner=direct"}, {"--runner=flink", "--parallelism=2"}}) {
      Path out = temp.resolve(name + runner[0].substring(9) + ".jsonl");
      List<String> args =
          new ArrayList<>(
              List.of("trends", "--queries=" + queries, "--events=" + events, "--out=" + out));
      args.addAll(List.of(runner));
      args.addAll(List.of(extra));
      String err = run(args.toArray(String[]::new));
      assertThat(err, containsString(expected.size() + " results"));
      // Byte for byte: the runner's file is already sorted.
      assertThat(name + " " + runner[0], Files.readAllLines(out), equalTo(expected));
    }
  }

  @Test
  void theRidesExampleGivesTheSameFileOnTheCoreTheDirectRunnerAndFlink() throws IOException {
    assertSameOnEveryRunner(
        Path.of("../examples/trends/rides.queries"),
        Path.of("../examples/trends/rides.jsonl"),
        "rides");
  }

  @Test
  void theRidesExampleWithWorkloadChangesGivesTheSameFileEverywhere() throws IOException {
    assertSameOnEveryRunner(
        Path.of("../examples/trends/rides.queries"),
        Path.of("../examples/trends/rides.jsonl"),
        "rides-changed",
        "--workload-changes=../examples/trends/rides.changes.jsonl");
    assertThat(
        Files.readString(temp.resolve("rides-changed-core.jsonl")),
        containsString("fast_pool_trips"));
  }

  @Test
  void theRidesExampleWithChangesSentAsAStreamGivesTheSameFileOnBothRunners() throws IOException {
    Path core = temp.resolve("rides-stream-core.jsonl");
    String changes = "--workload-changes=../examples/trends/rides.changes.jsonl";
    run(
        "trends",
        "--queries=../examples/trends/rides.queries",
        "--events=../examples/trends/rides.jsonl",
        "--sort",
        changes,
        "--out=" + core);
    List<String> expected = sortedLines(core);
    for (String runner : List.of("direct", "flink")) {
      Path out = temp.resolve("rides-stream-" + runner + ".jsonl");
      run(
          "trends",
          "--queries=../examples/trends/rides.queries",
          "--events=../examples/trends/rides.jsonl",
          changes,
          "--changes-as-stream",
          "--runner=" + runner,
          "--out=" + out);
      assertThat(runner, Files.readAllLines(out), equalTo(expected));
    }
  }

  @Test
  void randomWorkloadsOverShuffledStreamsGiveTheSameFiles() throws IOException {
    String[] patterns = {
      "SEQ(A, B+)", "SEQ(A, B+, C)", "SEQ(A, NOT C, B+)", "SEQ(B+, NOT C)", "SEQ(A+, B)"
    };
    String[] returns = {"COUNT(*)", "COUNT(B)", "SUM(B.v)", "AVG(B.v)", "MAX(B.v)"};
    for (long seed = 0; seed < 3; seed++) {
      Random random = new Random(seed);
      StringBuilder workload = new StringBuilder();
      for (int q = 0; q < 4; q++) {
        workload
            .append("QUERY q")
            .append(q)
            .append("\nRETURN ")
            .append(returns[random.nextInt(returns.length)])
            .append("\nPATTERN ")
            .append(patterns[random.nextInt(patterns.length)])
            .append(random.nextBoolean() ? "\nWHERE [k] AND B.v < " + (2 + random.nextInt(6)) : "")
            .append("\nGROUPBY g\nWITHIN 40 ms SLIDE ")
            .append(random.nextBoolean() ? 20 : 40)
            .append(" ms\n\n");
      }
      List<String> lines = new ArrayList<>();
      for (int i = 0; i < 600; i++) {
        lines.add(
            String.format(
                "{\"type\":\"%s\",\"time\":%d,\"k\":%d,\"g\":\"%s\",\"v\":%d.%d}",
                "ABC".charAt(random.nextInt(10) < 6 ? 1 : random.nextInt(3)),
                random.nextInt(400),
                random.nextInt(3),
                random.nextBoolean() ? "x" : "y",
                random.nextInt(8),
                random.nextInt(10)));
      }
      Collections.shuffle(lines, random);
      Path queries = temp.resolve("random-" + seed + ".queries");
      Path events = temp.resolve("random-" + seed + ".jsonl");
      Files.writeString(queries, workload);
      Files.write(events, lines);
      assertSameOnEveryRunner(queries, events, "random-" + seed);
    }
  }

  @Test
  void gretaIsNotARunnerEngineAndBadLinesStillNeedADeadLetterFile() throws IOException {
    Path queries = temp.resolve("q.queries");
    Files.writeString(
        queries, "QUERY q\nRETURN COUNT(*)\nPATTERN SEQ(A, B+)\nGROUPBY g\nWITHIN 10 ms\n");
    Path events = temp.resolve("e.jsonl");
    Files.writeString(
        events,
        "{\"type\":\"A\",\"time\":1,\"g\":1}\n{\"type\":\"B\",\"time\":2}\n"
            + "{\"type\":\"B\",\"time\":3,\"g\":1}\n");
    CommandLine cli = EventideCli.commandLine();
    StringWriter err = new StringWriter();
    cli.setErr(new PrintWriter(err));
    int code =
        cli.execute(
            "trends",
            "--queries=" + queries,
            "--events=" + events,
            "--runner=direct",
            "--engine=greta");
    assertThat(code, equalTo(2));
    assertThat(err.toString(), containsString("in-process baseline"));
    err.getBuffer().setLength(0);
    code = cli.execute("trends", "--queries=" + queries, "--events=" + events, "--runner=direct");
    assertThat(code, equalTo(1));
    assertThat(err.toString(), containsString(":2: "));
    Path dead = temp.resolve("dead.jsonl");
    Path out = temp.resolve("out.jsonl");
    String ok =
        run(
            "trends",
            "--queries=" + queries,
            "--events=" + events,
            "--runner=direct",
            "--dead-letter=" + dead,
            "--out=" + out);
    assertThat(ok, containsString("1 bad event lines"));
    assertThat(Files.readString(dead), containsString("\"line\":2"));
    assertThat(Files.readString(out), containsString("\"value\":\"1\""));
  }

  /**
   * Times near the ends of the long range: the core refuses those whose windows leave it, a
   * pipeline also those beyond Beam's timestamps; each is a dead letter, never a wrong row or a
   * failed job, and the events in range still count.
   */
  @Test
  void timesNearTheEndsOfTheLongRangeAreDeadLettersOnEveryPath() throws IOException {
    Path queries = temp.resolve("q.queries");
    Files.writeString(queries, "QUERY q\nRETURN COUNT(*)\nPATTERN SEQ(A, B+)\nWITHIN 10 ms\n");
    Path events = temp.resolve("e.jsonl");
    long min = Long.MIN_VALUE;
    long max = Long.MAX_VALUE;
    long[] times = {min, min + 15, min + 25, 1, 2, 3, max - 30, max - 25, max};
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < times.length; i++) {
      text.append("{\"type\":\"")
          .append(i % 3 == 0 ? "A" : "B")
          .append("\",\"time\":")
          .append(times[i])
          .append("}\n");
    }
    Files.writeString(events, text);
    for (String runner : new String[] {null, "--runner=direct"}) {
      Path dead = temp.resolve("dead-" + runner + ".jsonl");
      Path out = temp.resolve("out-" + runner + ".jsonl");
      List<String> args =
          new ArrayList<>(
              List.of(
                  "trends",
                  "--queries=" + queries,
                  "--events=" + events,
                  "--dead-letter=" + dead,
                  "--out=" + out));
      if (runner != null) {
        args.add(runner);
      }
      run(args.toArray(String[]::new));
      // One window of the ordinary times: A@1 then B@2 and B@3.
      assertThat(
          runner,
          Files.readAllLines(out),
          equalTo(
              List.of(
                  "{\"query\":\"q\",\"group\":{},\"window_start\":0,\"window_end\":10,"
                      + "\"value\":\"3\"}")));
      List<String> letters = Files.readAllLines(dead);
      // The core's windows of 10 ms need 20 ms of room; Beam's timestamps end near ±2^63 / 1000.
      long[] refused =
          runner == null
              ? new long[] {min, min + 15, max}
              : new long[] {min, min + 15, min + 25, max - 30, max - 25, max};
      assertThat(runner + " " + letters, letters.size(), equalTo(refused.length));
      for (long t : refused) {
        assertThat(runner, String.join("\n", letters), containsString("time " + t + " is "));
      }
    }
  }
}
