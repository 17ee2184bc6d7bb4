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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class EventideCliTest {
  @TempDir Path temp;

  /** What a command line printed and returned. */
  private record Outcome(int exitCode, String out, String err) {}

  private static Outcome run(String... args) {
    CommandLine cli = EventideCli.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    int code = cli.execute(args);
    return new Outcome(code, out.toString(), err.toString());
  }

  private static void assertNoStackTrace(Outcome o) {
    assertThat(o.err(), not(containsString("\tat ")));
    assertThat(o.err(), not(containsString("Exception")));
  }

  @Test
  void helpListsTheRunCommand() {
    Outcome o = run("--help");
    assertThat(o.exitCode(), equalTo(0));
    assertThat(o.out(), containsString("run"));
    Outcome runHelp = run("run", "--help");
    assertThat(runHelp.exitCode(), equalTo(0));
    assertThat(runHelp.out(), containsString("--runner=RUNNER"));
    assertThat(runHelp.out(), containsString("--flink-master=MASTER"));
    assertThat(runHelp.out(), containsString("--config=FILE"));
  }

  @Test
  void versionNamesEventideAndItsRunners() {
    Outcome o = run("--version");
    assertThat(o.exitCode(), equalTo(0));
    assertThat(o.out(), containsString("eventide 0.1.0-SNAPSHOT"));
    assertThat(o.out(), containsString("Apache Beam 2.70.0, Flink 1.19.0"));
  }

  @Test
  void unknownRunnerIsAUsageError() {
    Outcome o = run("run", "--runner=spark");
    assertThat(o.exitCode(), equalTo(2));
    assertThat(o.err(), containsString("Invalid value for option '--runner'"));
    assertThat(o.err(), containsString("DIRECT, FLINK"));
    assertNoStackTrace(o);
  }

  @Test
  void unknownOptionIsAUsageError() {
    Outcome o = run("run", "--evnets=10");
    assertThat(o.exitCode(), equalTo(2));
    assertThat(o.err(), containsString("Unknown option: '--evnets=10'"));
    assertNoStackTrace(o);
  }

  @Test
  void missingConfigFileIsAUsageError() {
    Path missing = temp.resolve("nope.conf");
    Outcome o =
        run("run", "--config", missing.toString(), "--output", temp.resolve("out").toString());
    assertThat(o.exitCode(), equalTo(2));
    assertThat(o.err(), containsString("eventide run: config file " + missing + " does not exist"));
    assertNoStackTrace(o);
  }

  @Test
  void malformedConfigLineNamesTheLine() throws IOException {
    Path config =
        Files.writeString(
            temp.resolve("bad.conf"), "# comment\nrunner=DirectRunner\nparallelism 4\n");
    Outcome o =
        run("run", "--config", config.toString(), "--output", temp.resolve("out").toString());
    assertThat(o.exitCode(), equalTo(2));
    assertThat(
        o.err(),
        containsString(
            config + " line 3: expected a pipeline option as name=value, but was 'parallelism 4'"));
    assertNoStackTrace(o);
  }

  @Test
  void unknownPipelineOptionInConfigIsAUsageError() throws IOException {
    Path config =
        Files.writeString(temp.resolve("bad.conf"), "runner=DirectRunner\nflinkMastr=x\n");
    Outcome o =
        run("run", "--config", config.toString(), "--output", temp.resolve("out").toString());
    assertThat(o.exitCode(), equalTo(2));
    assertThat(o.err(), containsString("invalid pipeline options from " + config));
    assertThat(o.err(), containsString("flinkMastr"));
    assertNoStackTrace(o);
  }

  @Test
  void badWorkloadValuesAreUsageErrors() {
    Outcome badDuration = run("run", "--window", "10x");
    assertThat(badDuration.exitCode(), equalTo(2));
    assertThat(badDuration.err(), containsString("'10x' is not a duration"));
    Outcome badFraction =
        run("run", "--late-fraction", "2", "--output", temp.resolve("a").toString());
    assertThat(badFraction.exitCode(), equalTo(2));
    assertThat(badFraction.err(), containsString("lateFraction must be in [0, 1], but was 2.0"));
    Outcome badDistribution =
        run("run", "--lateness", "pareto(1)", "--output", temp.resolve("b").toString());
    assertThat(badDistribution.exitCode(), equalTo(2));
    assertThat(badDistribution.err(), containsString("unknown distribution 'pareto'"));
    assertNoStackTrace(badDuration);
    assertNoStackTrace(badFraction);
    assertNoStackTrace(badDistribution);
  }

  @Test
  void refusesANonEmptyOutputDirectory() throws IOException {
    Path out = Files.createDirectories(temp.resolve("out"));
    Files.writeString(out.resolve("old.txt"), "x");
    Outcome o = run("run", "--runner", "direct", "--output", out.toString());
    assertThat(o.exitCode(), equalTo(2));
    assertThat(o.err(), containsString("is not empty"));
  }

  @Test
  void runsTheAverageOnTheDirectRunnerAndPrintsASummary() throws IOException {
    Path out = temp.resolve("avg");
    Outcome o =
        run(
            "run",
            "average",
            "--runner=direct",
            "--events=3000",
            "--events-per-window=500",
            "--output",
            out.toString());
    assertThat(o.err(), o.exitCode(), equalTo(0));
    assertThat(o.out(), containsString("window start (UTC)"));
    assertThat(o.err(), containsString("average: done in"));
    assertThat(o.err(), containsString("beyond the allowed lateness"));
    assertThat(Files.exists(out.resolve("summary.jsonl")), equalTo(true));
  }
}
