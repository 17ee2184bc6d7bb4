package dev.eventide.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.matchesPattern;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code eventide bench tiering} end to end at a tiny scale, and its usage errors. */
class BenchTieringCommandTest {
  @TempDir Path temp;

  @Test
  void theCommandRunsEachVariantInItsOwnJvmAndWritesCharts() throws Exception {
    CommandLine cli = EventideCli.commandLine();
    StringWriter out = new StringWriter();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(new StringWriter()));
    int code =
        cli.execute(
            "bench",
            "tiering",
            "--workloads",
            "bigrams",
            "--variants",
            "tiered,native-flink-heap",
            "--past-windows",
            "2",
            "--events-per-window",
            "300",
            "--windows",
            "6",
            "--xmx",
            "256m",
            "--gc",
            "parallel",
            "--chart-dir",
            temp.toString());
    assertThat(out.toString(), code, equalTo(0));
    assertThat(
        out.toString(),
        matchesPattern(
            "(?s).*bigrams +2 tiered +[0-9.]+MB +[0-9.]+MB +[0-9]+% +[0-9]+ +[0-9.]+x .*"));
    assertThat(out.toString(), containsString("native-flink-heap"));
    assertThat(Files.size(temp.resolve("tiering-bigrams-heap.png")) > 0, equalTo(true));
    assertThat(Files.size(temp.resolve("tiering-bigrams-throughput.png")) > 0, equalTo(true));
  }

  @Test
  void badOptionsAreUsageErrors() {
    for (String[] args :
        List.of(
            new String[] {"bench", "tiering", "--variants", "bogus"},
            new String[] {"bench", "tiering", "--events-per-window", "70000"},
            new String[] {"bench", "tiering", "--workloads", "median"},
            new String[] {"bench", "tiering", "--xmx", "lots"},
            new String[] {"bench", "tiering", "--gc", "zgc"})) {
      CommandLine cli = EventideCli.commandLine();
      StringWriter err = new StringWriter();
      cli.setOut(new PrintWriter(new StringWriter()));
      cli.setErr(new PrintWriter(err));
      assertThat(String.join(" ", args) + ": " + err, cli.execute(args), equalTo(2));
      assertThat(err.toString(), containsString("tiering"));
    }
  }
}
