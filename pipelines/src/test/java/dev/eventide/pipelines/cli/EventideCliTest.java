package dev.eventide.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
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
    assertThat(
        o.err(),
        containsString("expected direct or flink (or DirectRunner, FlinkRunner), but was 'spark'"));
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
            config + ":3: expected a pipeline option as name=value, but was 'parallelism 4'"));
    assertNoStackTrace(o);
  }

  @Test
  void unknownPipelineOptionInConfigIsAUsageError() throws IOException {
    Path config =
        Files.writeString(temp.resolve("bad.conf"), "runner=DirectRunner\nflinkMastr=x\n");
    Outcome o =
        run("run", "--config", config.toString(), "--output", temp.resolve("out").toString());
    assertThat(o.exitCode(), equalTo(2));
    assertThat(
        o.err(), containsString(config + ":2: flinkMastr=x is not a valid pipeline option: "));
    assertNoStackTrace(o);
  }

  @Test
  void aStoreThatCannotBeWrittenIsAUsageErrorBeforeTheJobStarts() throws IOException {
    Path file = Files.writeString(temp.resolve("a-file"), "not a directory");
    String store = file.resolve("blocks").toUri().toString();
    Outcome o =
        run(
            "run",
            "--runner",
            "direct",
            "--events",
            "100",
            "--store",
            store,
            "--output",
            temp.resolve("out").toString());
    assertThat(o.exitCode(), equalTo(2));
    assertThat(o.err(), containsString("--store " + store + ": cannot write a block there ("));
    assertThat(o.err(), not(containsString("panes written")));
    assertNoStackTrace(o);
  }

  @Test
  void aConfigFileNamesTheLineOfABadValueATwiceSetOptionAndBytesThatAreNotUtf8()
      throws IOException {
    Path badValue =
        Files.writeString(temp.resolve("value.conf"), "runner=DirectRunner\nparallelism=abc\n");
    Outcome value =
        run("run", "--config", badValue.toString(), "--output", temp.resolve("out").toString());
    assertThat(value.exitCode(), equalTo(2));
    assertThat(
        value.err(),
        containsString(
            badValue
                + ":2: parallelism=abc is not a valid pipeline option: Cannot deserialize value of"
                + " type `java.lang.Integer` from String \"abc\""));
    assertThat(value.err(), not(containsString("UNKNOWN")));
    Path twice =
        Files.writeString(
            temp.resolve("twice.conf"), "runner=DirectRunner\n# the other\nrunner=FlinkRunner\n");
    Outcome set =
        run("run", "--config", twice.toString(), "--output", temp.resolve("out").toString());
    assertThat(set.exitCode(), equalTo(2));
    assertThat(
        set.err(), containsString(twice + ":3: runner is set twice (first on line 1); keep one"));
    Path latin1 = temp.resolve("latin1.conf");
    Files.write(latin1, "runner=DirectRunner\n# caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));
    Outcome bytes =
        run("run", "--config", latin1.toString(), "--output", temp.resolve("out").toString());
    assertThat(bytes.exitCode(), equalTo(2));
    assertThat(
        bytes.err(), containsString(latin1 + ":2: not valid UTF-8; save the config file as UTF-8"));
    assertNoStackTrace(value);
    assertNoStackTrace(set);
    assertNoStackTrace(bytes);
  }

  @Test
  void badWorkloadValuesAreUsageErrors() {
    Outcome badDuration = run("run", "--window", "10x");
    assertThat(badDuration.exitCode(), equalTo(2));
    assertThat(badDuration.err(), containsString("'10x' is not a duration"));
    Outcome badFraction =
        run("run", "--late-fraction", "2", "--output", temp.resolve("a").toString());
    assertThat(badFraction.exitCode(), equalTo(2));
    assertThat(
        badFraction.err(), containsString("--late-fraction must be from 0 to 1, but was 2.0"));
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

  @Test
  void runsTheDataflowsOnEmbeddedFlinkAndPrintsTheirOutputs() {
    Outcome stocks =
        run(
            "run",
            "stock-market",
            "--events=2000",
            "--events-per-window=400",
            "--output",
            temp.resolve("stocks").toString());
    assertThat(stocks.err(), stocks.exitCode(), equalTo(0));
    assertThat(stocks.out(), containsString("correlation.txt: "));
    assertThat(stocks.out(), containsString(" symbols=16 r="));
    assertThat(stocks.err(), containsString("stock-market: done in"));
    Outcome road =
        run(
            "run",
            "linear-road",
            "--events=3000",
            "--events-per-window=1000",
            "--show=2",
            "--output",
            temp.resolve("road").toString());
    assertThat(road.err(), road.exitCode(), equalTo(0));
    assertThat(road.out(), containsString("tolls.txt: "));
    assertThat(road.err(), containsString("window 1m, allowed lateness 4m"));
  }

  @Test
  void workloadFlagsAreCheckedAgainstTheWorkload() {
    String[][] cases = {
      {"nosuch", "unknown workload 'nosuch'; expected one of average, bigrams, overlap,"},
      {"overlap --store=file:///tmp/x", "Unknown option: '--store=file:///tmp/x'"},
      {"stock-market --native", "Unknown option: '--native'"},
      {"overlap --fault-drill-at=3", "Unknown option: '--fault-drill-at=3'"},
      {"ridesharing --lateness=uniform(0,1)", "Unknown option: '--lateness=uniform(0,1)'"},
      {"average --native --store=file:///tmp/x", "--store is for TieredWindow"},
      {"--events=5 bigrams", "--events before the workload would be the average workload's"},
      {"average --events=10 --fault-drill-at=10", "--fault-drill-at must be from 0 to --events"},
      {"average --runner=direct --fault-drill-at=3", "--fault-drill-at needs a Flink job that"},
      {
        "stock-market --window=999ms --events-per-window=100",
        "the window must be an even number of milliseconds"
      },
    };
    for (String[] c : cases) {
      List<String> args = new ArrayList<>(List.of("run"));
      args.addAll(List.of(c[0].split(" ")));
      args.add("--output=" + temp.resolve("flags-" + Math.abs(c[0].hashCode())));
      Outcome o = run(args.toArray(String[]::new));
      assertThat(c[0] + ": " + o.err(), o.exitCode(), equalTo(2));
      assertThat(c[0], o.err(), containsString(c[1]));
      assertNoStackTrace(o);
    }
  }

  /** Each workload's --help lists its own flags, not those of the others. */
  @Test
  void eachWorkloadHelpListsItsOwnFlags() {
    String[][] cases = {
      {"average", "--fault-drill-at=N", "--show=N"},
      {"bigrams", "--native", "--show=N"},
      {"overlap", "--show=N", "--store=URI"},
      {"stock-market", "--purge-delay=DURATION", "--native"},
      {"linear-road", "--store=URI", "--fault-drill-at=N"},
      {"ridesharing", "--late-fraction=P", "--lateness=DIST"},
    };
    for (String[] c : cases) {
      Outcome help = run("run", c[0], "--help");
      assertThat(c[0], help.exitCode(), equalTo(0));
      assertThat(c[0], help.out(), containsString("eventide run " + c[0]));
      assertThat(c[0], help.out(), containsString("--runner=RUNNER"));
      assertThat(c[0], help.out(), containsString(c[1]));
      assertThat(c[0], help.out(), not(containsString(c[2])));
    }
    Outcome run = run("run", "--help");
    for (String workload : List.of("average", "bigrams", "overlap", "ridesharing")) {
      assertThat(run.out(), containsString(workload));
    }
  }

  @Test
  void mistypedValuesAreUsageErrorsThatNameTheirFlagBeforeAnyJob() {
    String[][] cases = {
      {"--window=9999999999999h", "'9999999999999h' is longer than the longest duration"},
      {"--window=999999999999h", "--window 999999999999h over 200,000 events (10,000 per window)"},
      {"--parallelism=100000", "--parallelism must be from 1 to 32768, but was 100000"},
      {"--output=", "--output must name a directory, but was empty"},
      {"--events=0", "--events must be at least 1, but was 0"},
      {"--events-per-window=20000", "--events-per-window must be from 1 to the --window in ms"},
      {"--allowed-lateness=-1s", "'-1s' is not a duration"},
      {"--flink-master=local", "Flink master 'local' is a host name; for embedded Flink write"},
      {"--flink-master=127.0.0.1:99999", "port 99999 is not between 1 and 65535"},
      {"--flink-master=[remote]", "is not [local], [auto] or host:port"},
      {"--flink-master=127.0.0.1:1", "Flink master 127.0.0.1:1: nothing listens there"},
      {"--flink-master=nosuchhost.invalid:8081", "unknown host nosuchhost.invalid"},
    };
    for (String[] c : cases) {
      Path output = temp.resolve("out-" + Math.abs(c[0].hashCode()));
      Outcome o =
          c[0].startsWith("--output") ? run("run", c[0]) : run("run", c[0], "--output=" + output);
      assertThat(c[0] + ": " + o.err(), o.exitCode(), equalTo(2));
      assertThat(c[0], o.err(), containsString(c[1]));
      assertNoStackTrace(o);
      assertThat(c[0] + " made its output", Files.exists(output), equalTo(false));
    }
    Outcome unwritable = run("run", "--output=/proc/eventide-nope");
    assertThat(unwritable.exitCode(), equalTo(2));
    assertThat(unwritable.err(), containsString("--output /proc/eventide-nope: cannot create it"));
  }

  @Test
  void runnerNamesOfTheConfigFilesAreAcceptedToo() {
    for (String name : new String[] {"DirectRunner", "directrunner", "DIRECT", "FlinkRunner"}) {
      // A bad value after the runner stops the command before any job, once the runner is read.
      Outcome o = run("run", "--runner=" + name, "--events=0");
      assertThat(name + ": " + o.err(), o.exitCode(), equalTo(2));
      assertThat(name, o.err(), containsString("--events must be at least 1"));
    }
  }

  @Test
  void benchmarksRefuseMistypedValuesAndUnwritableChartDirectoriesAtOnce() {
    String[][] cases = {
      {"transforms", "--operators=Nope", "--operators: unknown operator 'Nope'; expected Filter"},
      {"transforms", "--runners=spark", "--runners: unknown runner 'spark'"},
      {"transforms", "--flink-events=0", "--flink-events must be at least 1, but was 0"},
      {"transforms", "--chart-dir=/proc/eventide-nope", "--chart-dir /proc/eventide-nope: cannot"},
      {"tiering", "--xmx=1k", "--xmx 1k is too small: a run needs a heap of at least 64m"},
      {"tiering", "--timeout=0", "--timeout must be at least 1, but was 0"},
      {"trends", "--rounds=0", "--rounds must be at least 1, but was 0"},
      {"trends", "--queries=5,0", "--queries must be at least 1, but was 0"},
      {"trends", "--streams=taxis", "--streams: unknown stream 'taxis'"},
      {"trends", "--chart-dir=/proc/eventide-nope", "--chart-dir /proc/eventide-nope: cannot"},
      {"trends", "--beam", "Unknown option: '--beam'"},
      {"trends", "--change-every=0", "--change-every must be at least 1, but was 0"},
      {"trends-beam", "--parallelism=0", "--parallelism must be >= 1"},
      {"trends-beam", "--input=file", "--input must be bounded or stream, not 'file'"},
      {"trends-beam", "--streams=taxis", "--streams: unknown stream 'taxis'"},
      {"trend-bursts", "--class-sizes=0", "--class-sizes must be at least 1, but was 0"},
      {"trend-bursts", "--chart-dir=/proc/eventide-nope", "--chart-dir /proc/eventide-nope: can"},
      {"staleness", "--chart-dir=/proc/eventide-nope", "--chart-dir /proc/eventide-nope: cannot"},
      {"soak", "--minutes=0", "--minutes must be > 0, but was 0.0"},
      {"soak", "--active-keys=0", "activeKeys must be >= 1, but was 0"},
      {"soak", "--key-lifetime=10s", "keyLifetime must be at least one window (PT60S), but was"},
      {"soak", "--events-per-window=70000", "eventsPerWindow must be in [1, window in ms = 60000]"},
      {"soak", "--lateness=zipf(1)", "--lateness zipf(1): "},
      {"soak", "--period=10ms", "--period must be at least 1s, but was 10ms"},
      {"soak", "--store=/proc/eventide-nope", "--store /proc/eventide-nope: cannot"},
      {"soak", "--chart-dir=/proc/eventide-nope", "--chart-dir /proc/eventide-nope: cannot"},
    };
    for (String[] c : cases) {
      Outcome o = run("bench", c[0], c[1]);
      assertThat(c[1] + ": " + o.err(), o.exitCode(), equalTo(2));
      assertThat(c[1], o.err(), containsString(c[2]));
      assertThat(c[1], o.out(), equalTo(""));
      assertNoStackTrace(o);
    }
  }

  @Test
  void benchTransformsSaysWhatVsDMeansAndWritesItsChartWhereAsked() throws IOException {
    Path charts = temp.resolve("charts");
    Outcome o =
        run(
            "bench",
            "transforms",
            "--runners=direct",
            "--operators=filter",
            "--direct-events=50",
            "--chart-dir=" + charts);
    assertThat(o.err(), o.exitCode(), equalTo(0));
    java.util.List<String> lines = o.out().lines().toList();
    assertThat(lines.get(0), containsString("vs D: how many times slower than Beam's native"));
    assertThat(lines.get(1), containsString("events/s     vs D"));
    assertThat(lines.size(), equalTo(2 + 4));
    assertThat(lines.get(2), containsString("direct  Filter       D "));
    assertThat(lines.get(2), containsString("1.00x"));
    assertThat(Files.size(charts.resolve("transforms-direct.png")) > 0, equalTo(true));
    assertNoStackTrace(o);
  }

  /** A short soak on the DirectRunner: its rows, verdict and charts, and no blocks left behind. */
  @Test
  void benchSoakPrintsItsReadingsAndDeletesItsRunsStore() throws IOException {
    Path store = temp.resolve("blocks");
    Path charts = temp.resolve("soak-charts");
    Outcome o =
        run(
            "bench",
            "soak",
            "--runner=direct",
            "--events=3000",
            "--active-keys=40",
            "--minutes=10",
            "--period=1s",
            "--store=" + store,
            "--chart-dir=" + charts);
    assertThat(o.err(), o.exitCode(), equalTo(0));
    assertThat(o.out(), containsString("job ended after"));
    assertThat(
        o.out(), containsString("blocks left in the store: TieredWindow 0, TrendAggregate 0"));
    assertThat(o.out(), containsString("verdict: "));
    assertThat(Files.size(charts.resolve("soak-state.png")) > 0, equalTo(true));
    try (var left = Files.list(store)) {
      assertThat("the run's store directory is deleted", left.toList(), equalTo(List.of()));
    }
    assertNoStackTrace(o);
  }

  @Test
  void benchTrendsChangesComparesChangingWithFixedAndRestarted() throws IOException {
    Path charts = temp.resolve("changes-charts");
    Outcome o =
        run(
            "bench",
            "trends",
            "--changes",
            "--streams=rides",
            "--queries=5",
            "--fixed-events=400",
            "--windows=3",
            "--change-every=100",
            "--rounds=1",
            "--chart-dir=" + charts);
    assertThat(o.err(), o.exitCode(), equalTo(0));
    assertThat(o.out(), containsString(" fixed "));
    // 1,200 events, a change before every 100th after the first: 11 changes.
    assertThat(o.out(), containsString("      100        11 changed "));
    assertThat(o.out(), containsString("      100        11 restarted "));
    assertThat(Files.size(charts.resolve("trend-changes-rides.png")) > 0, equalTo(true));
    assertNoStackTrace(o);
  }

  @Test
  void benchTrendsReadingPrintsEachReadersLinesPerSecond() {
    Outcome o =
        run(
            "bench",
            "trends",
            "--reading",
            "--streams=stocks",
            "--fixed-events=500",
            "--windows=2",
            "--rounds=1");
    assertThat(o.err(), o.exitCode(), equalTo(0));
    assertThat(o.out(), containsString("stocks  lines               1000"));
    assertThat(o.out(), containsString("stocks  event-json          1000"));
    assertThat(o.out(), containsString("stocks  jackson-tree        1000"));
    assertThat(o.out(), containsString("1.00x"));
    assertNoStackTrace(o);
  }

  @Test
  void benchTrendsColdTimesEachPhaseInFreshJvms() {
    Outcome o = benchCold("hamlet,unshared");
    assertThat(o.err(), o.exitCode(), equalTo(0));
    // 2 windows of 10 runs, 3 queries: a result per query and window, from both engines.
    assertThat(
        o.out(),
        containsString("varpulis      210     3 hamlet         this           420        6 |"));
    assertThat(
        o.out(),
        containsString("varpulis      210     3 unshared       this           420        6 |"));
    assertThat(o.out(), containsString("cold ms"));
    assertThat(o.out(), containsString("warm ms"));
    assertNoStackTrace(o);
  }

  @Test
  void benchTrendsColdComparesKindsOfJvmSideBySide() {
    Outcome o =
        benchCold(
            "hamlet",
            "--jvm=c2=",
            "--jvm=c1=" + System.getProperty("java.home") + " -XX:TieredStopAtLevel=1");
    assertThat(o.err(), o.exitCode(), equalTo(0));
    assertThat(o.err(), containsString("1 fresh JVMs of each of 2 kinds"));
    List<String> rows =
        o.out().lines().filter(l -> l.startsWith("varpulis")).collect(Collectors.toList());
    assertThat(rows.size(), equalTo(2));
    assertThat(
        rows.get(0), startsWith("varpulis      210     3 hamlet         c2             420"));
    assertThat(
        rows.get(1), startsWith("varpulis      210     3 hamlet         c1             420"));
    // The first kind against itself.
    assertThat(rows.get(0), endsWith("1.00x      1.00x"));
    assertNoStackTrace(o);
  }

  @Test
  void benchTrendsColdRefusesAJvmThatIsNotOne() {
    Path notHome = temp.resolve("no-jdk");
    Outcome o =
        run("bench", "trends", "--cold", "--streams=varpulis", "--jvm=x=" + notHome + " -Xint");
    assertThat(o.exitCode(), equalTo(2));
    assertThat(
        o.err(), containsString("--jvm x: " + notHome + " is not a Java home (no executable"));
    assertNoStackTrace(o);

    Outcome word = run("bench", "trends", "--cold", "--streams=varpulis", "--jvm=x=-Xint fast");
    assertThat(word.exitCode(), equalTo(2));
    assertThat(word.err(), containsString("--jvm x: 'fast' is not a JVM option"));

    Outcome nameless = run("bench", "trends", "--cold", "--jvm= =-Xint");
    assertThat(nameless.exitCode(), equalTo(2));
    assertThat(nameless.err(), containsString("--jvm must be NAME=[JAVA_HOME] [OPTION...]"));

    Outcome twice = run("bench", "trends", "--cold", "--jvm=a=", "--jvm=a=-Xint");
    assertThat(twice.exitCode(), equalTo(2));
    assertThat(twice.err(), containsString("--jvm names must differ, but were [a, a]"));

    // The options reach the JVM: one it does not know stops it, and the run says which JVM.
    Outcome unknown = benchCold("hamlet", "--jvm=odd=-XX:+NoSuchFlagInAnyJvm");
    assertThat(unknown.exitCode(), not(equalTo(0)));
    assertThat(unknown.err(), containsString("ColdStartBenchmark's JVM (odd) failed"));
    assertNoStackTrace(unknown);

    Outcome withoutCold = run("bench", "trends", "--jvm=a=");
    assertThat(withoutCold.exitCode(), equalTo(2));
    assertThat(withoutCold.err(), containsString("--jvm needs --cold"));
  }

  @Test
  void benchTrendsComparesWithGretaOnlyWhenItRuns() {
    for (String engines : List.of("hamlet,hamlet-static", "hamlet,greta")) {
      Outcome o =
          run(
              "bench",
              "trends",
              "--streams=stocks",
              "--events-per-window=200",
              "--queries=2",
              "--fixed-events=200",
              "--warmup=0",
              "--rounds=1",
              "--engines=" + engines);
      assertThat(o.err(), o.exitCode(), equalTo(0));
      List<String[]> rows =
          o.out()
              .lines()
              .filter(l -> l.startsWith("stocks "))
              .map(l -> l.trim().split("\\s+"))
              .collect(Collectors.toList());
      assertThat(o.out(), rows.size(), equalTo(4));
      for (String[] row : rows) {
        // The "vs GRETA" column: "-" without GRETA, GRETA against itself 1.0x, others a ratio.
        String line = String.join(" ", row);
        if (!engines.contains("greta")) {
          assertThat(line, row[8], equalTo("-"));
        } else if (row[3].equals("greta")) {
          assertThat(line, row[8], equalTo("1.0x"));
        } else {
          assertThat(line, row[8], endsWith("x"));
        }
      }
    }
  }

  /**
   * {@code bench trends --cold} on two small windows of the Varpulis shape, one JVM of each kind.
   */
  private Outcome benchCold(String engines, String... jvms) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "bench",
                "trends",
                "--cold",
                "--streams=varpulis",
                "--events-per-window=210",
                "--windows=2",
                "--fixed-queries=3",
                "--engines=" + engines,
                "--rounds=1"));
    args.addAll(List.of(jvms));
    return run(args.toArray(String[]::new));
  }

  @Test
  void benchTrendsFloorCountsTheWordsOfTheExactArithmetic() {
    Outcome o =
        run(
            "bench",
            "trends",
            "--floor",
            "--streams=varpulis",
            "--events-per-window=420",
            "--windows=2",
            "--fixed-queries=3");
    assertThat(o.err(), o.exitCode(), equalTo(0));
    assertThat(o.out(), containsString("mult-add words"));
    // 2 windows of 20 runs of 21 events; counts of up to 400 B events need several limbs.
    assertThat(o.out(), containsString("varpulis      420     3       840 |"));
    assertThat(o.out(), containsString("x\n"));
    assertNoStackTrace(o);
  }
}
