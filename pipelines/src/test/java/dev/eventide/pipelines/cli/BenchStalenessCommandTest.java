package dev.eventide.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

import dev.eventide.pipelines.bench.StalenessBenchmark;
import dev.eventide.pipelines.bench.StalenessBenchmark.Fewest;
import dev.eventide.pipelines.bench.StalenessBenchmark.Lateness;
import dev.eventide.pipelines.bench.StalenessBenchmark.Trigger;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code eventide bench staleness} end to end at a small scale, and its usage errors. */
class BenchStalenessCommandTest {
  @TempDir Path temp;

  @Test
  void theCommandPrintsBothTablesAndWritesAChartPerDistribution() throws Exception {
    CommandLine cli = EventideCli.commandLine();
    StringWriter out = new StringWriter();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(new StringWriter()));
    int code =
        cli.execute(
            "bench",
            "staleness",
            "--distributions",
            "lnorm,unif",
            "--max-executions",
            "4",
            "--limit",
            "8",
            "--learning-sample",
            "300",
            "--held-out-sample",
            "1000",
            "--cleanup-windows",
            "50",
            "--chart-dir",
            temp.toString());
    assertThat(out.toString(), code, equalTo(0));
    assertThat(out.toString(), containsString("Δt/aion"));
    assertThat(out.toString(), containsString("aion/deltat"));
    assertThat(out.toString(), containsString("predicted covers"));
    assertThat(Files.size(temp.resolve("staleness-lnorm.png")) > 0, equalTo(true));
    assertThat(Files.size(temp.resolve("staleness-unif.png")) > 0, equalTo(true));
  }

  /** Where late values gather early, Aion's trigger needs fewer executions for the same bound. */
  @Test
  void aionNeedsNoMoreExecutionsThanPeriodicOrCountTriggersOnSkewedLateness() {
    StalenessBenchmark bench = new StalenessBenchmark(3_600_000, 1_000, 5_000, 3);
    List<Fewest> rows = bench.fewest(List.of(Lateness.LOG_NORMAL), List.of(0.1), 30);
    int aion = executions(rows, Trigger.AION);
    assertThat(aion > 0, equalTo(true));
    assertThat(aion, lessThanOrEqualTo(executions(rows, Trigger.DELTA_T)));
    assertThat(aion, lessThanOrEqualTo(executions(rows, Trigger.DELTA_E)));
  }

  /**
   * Predictive cleanup keeps window state for less than the fixed bound and still covers about the
   * target share of late values (log-normal lateness, a target of 99%).
   */
  @Test
  void predictiveCleanupKeepsLessStateAndCoversAboutTheTarget() {
    StalenessBenchmark bench = new StalenessBenchmark(3_600_000, 1_000, 1_000, 5);
    StalenessBenchmark.Cleanup row =
        bench.cleanup(List.of(Lateness.LOG_NORMAL), 0.99, 0.95, 400, 50).get(0);
    assertThat(row.keptShare() < 0.9, equalTo(true));
    assertThat(row.predictedCoverage() >= 0.985, equalTo(true));
  }

  private static int executions(List<Fewest> rows, Trigger trigger) {
    return rows.stream().filter(r -> r.trigger() == trigger).findFirst().orElseThrow().executions();
  }

  @Test
  void badOptionsAreUsageErrors() {
    for (String[] args :
        List.of(
            new String[] {"bench", "staleness", "--distributions", "normal"},
            new String[] {"bench", "staleness", "--max-executions", "0"},
            new String[] {"bench", "staleness", "--learning-sample", "3"},
            new String[] {"bench", "staleness", "--coverage", "1.5"})) {
      CommandLine cli = EventideCli.commandLine();
      StringWriter err = new StringWriter();
      cli.setOut(new PrintWriter(new StringWriter()));
      cli.setErr(new PrintWriter(err));
      assertThat(String.join(" ", args) + ": " + err, cli.execute(args), equalTo(2));
      assertThat(err.toString(), containsString("staleness"));
    }
  }
}
