package dev.eventide.pipelines.cli;

import dev.eventide.pipelines.bench.ArithmeticFloor;
import dev.eventide.pipelines.bench.Charts;
import dev.eventide.pipelines.bench.ColdStartBenchmark;
import dev.eventide.pipelines.bench.Jvm;
import dev.eventide.pipelines.bench.ReadingBenchmark;
import dev.eventide.pipelines.bench.TrendChangesBenchmark;
import dev.eventide.pipelines.bench.TrendStreams;
import dev.eventide.pipelines.bench.TrendsBenchmark;
import dev.eventide.trends.Event;
import dev.eventide.trends.engine.Engines;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.jfree.data.category.DefaultCategoryDataset;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code eventide bench trends}: HAMLET dynamic and static, the unshared incremental executor and
 * GRETA side by side.
 */
@Command(
    name = "trends",
    mixinStandardHelpOptions = true,
    versionProvider = EventideCli.Version.class,
    description = {
      "Throughput, time per window and peak heap of HAMLET (dynamic sharing), HAMLET static, the"
          + " unshared incremental executor and GRETA on the same workload and stream, varying"
          + " events per window (at --fixed-queries) and queries (at --fixed-events), on a"
          + " ride-sharing and a stock-like stream, and one whose bursts are hardly worth"
          + " sharing ('bench trend-bursts' measures where sharing a burst pays, 'bench"
          + " trends-beam' TrendAggregate on Beam's runners).",
      "Every engine's results must be equal (a digest is compared); prints events/s and the"
          + " speed-up over GRETA, ms per window elapsed and in the measuring thread's CPU time"
          + " (less disturbed by other work on a shared machine), the speed-up over HAMLET static"
          + " paired per round (the median over rounds of static's CPU time over the engine's in"
          + " the same round), and writes PNG charts. A run over its time budget stops early"
          + " and is marked: its events/s ('<') is then an upper bound, its speed-up over a"
          + " stopped GRETA ('>') a lower bound."
    },
    sortOptions = false)
final class BenchTrendsCommand implements Callable<Integer> {

  /** The window of --changes' stream and workload (tumbling), as the other sweeps use. */
  private static final long CHANGES_WINDOW_MILLIS = 60_000;

  /** Short settings are measured in more rounds, until each engine has run for this long. */
  private static final double MIN_MEASURED_SECONDS = 1;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin TrendBenchOptions workload;

  @Option(
      names = "--engines",
      split = ",",
      defaultValue = "hamlet,hamlet-static,unshared,greta",
      paramLabel = "ENGINE",
      description =
          "Engines to compare: hamlet, hamlet-static, unshared, greta; ratios are to greta, or to"
              + " the last one listed without it (default: ${DEFAULT-VALUE}).")
  List<String> engines;

  @Option(
      names = "--queries",
      split = ",",
      defaultValue = "5,25,100,1000",
      paramLabel = "K",
      description = "Workload sizes to vary (default: ${DEFAULT-VALUE}).")
  List<Integer> queries;

  @Option(
      names = "--fixed-events",
      defaultValue = "10000",
      paramLabel = "N",
      description = "Events per window while queries vary (default: ${DEFAULT-VALUE}).")
  int fixedEvents;

  @Option(
      names = "--budget",
      defaultValue = "20",
      paramLabel = "SECONDS",
      description = "Time budget of one engine's run (default: ${DEFAULT-VALUE}).")
  double budget;

  @Option(
      names = "--rounds",
      defaultValue = "3",
      paramLabel = "R",
      description =
          "Measured rounds, each engine once per round in turn, the fastest run of each counting;"
              + " more while an engine has run for less than a second in all (default:"
              + " ${DEFAULT-VALUE}).")
  int rounds;

  @Option(
      names = "--warmup",
      defaultValue = "2",
      paramLabel = "SECONDS",
      description = "How long each engine runs before it is measured (default: ${DEFAULT-VALUE}).")
  double warmup;

  @Option(
      names = "--changes",
      description =
          "Measure workload changes instead (HAMLET, in process): the time one change takes at each"
              + " of --queries, and events/s at --fixed-events per window while a query is added"
              + " and removed in turn every --change-every events, against the workload fixed and"
              + " against stopping and starting the engine at every change.")
  boolean changes;

  @Option(
      names = "--change-every",
      split = ",",
      defaultValue = "1000,10000",
      paramLabel = "N",
      description = "With --changes: events between two changes (default: ${DEFAULT-VALUE}).")
  List<Integer> changeEvery;

  @Option(
      names = "--reading",
      description =
          "Measure reading event lines instead: lines/s of splitting and decoding alone, of"
              + " parsing into events as eventide trends does, and of Jackson's tree model, over"
              + " --fixed-events × --windows events of each of --streams.")
  boolean reading;

  @Option(
      names = "--cold",
      description =
          "Measure short runs in fresh JVMs instead: for each of --streams and --events-per-window"
              + " (× --windows, at --fixed-queries), each of --engines in --rounds JVMs, the"
              + " milliseconds eventide trends spends parsing the query file, compiling the plan,"
              + " reading the event lines and evaluating them (results formatted as JSON lines),"
              + " in each JVM's first run (cold) and once warmed up (warm), and the JVM from launch"
              + " to exit; medians over the JVMs.")
  boolean cold;

  @Option(
      names = "--jvm",
      paramLabel = "NAME=[JAVA_HOME] [OPTION...]",
      description =
          "With --cold: a kind of JVM to measure in (repeatable), a Java home (this JVM's if"
              + " none) and JVM options, e.g. --jvm c2= --jvm 'c1=-XX:TieredStopAtLevel=1';"
              + " the kinds take turns in each round and each is printed against the first."
              + " Default: this JVM's Java, no options.")
  List<String> jvms = new ArrayList<>();

  @Option(
      names = "--floor",
      description =
          "Measure the floor of the exact arithmetic instead: for each of --streams and"
              + " --events-per-window (× --windows, at --fixed-queries), HAMLET in a fresh JVM that"
              + " counts the 64-bit words its multiply-adds, adds and copies touch, and this"
              + " machine's fastest multiply-add and add per word at the run's average operand"
              + " size: words × those rates is the time the arithmetic alone needs, against the"
              + " run's time.")
  boolean floor;

  @Mixin ChartOptions charts;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    validate();
    charts.check();
    if (changes) {
      return benchChanges(out, err);
    }
    if (reading) {
      return benchReading(out);
    }
    if (cold) {
      return benchCold(out, err);
    }
    if (floor) {
      return benchFloor(out, err);
    }
    printHeader(out);
    boolean agreed = true;
    for (String name : workload.streams) {
      TrendStreams.Kind stream = TrendBenchOptions.stream(name);
      agreed &=
          sweep(
              out,
              err,
              stream,
              workload.eventsPerWindow,
              true,
              charts.chart("trends-" + name + "-events.png"),
              "Trend aggregation, " + name + ", " + workload.fixedQueries + " queries: events/s");
      agreed &=
          sweep(
              out,
              err,
              stream,
              queries,
              false,
              charts.chart("trends-" + name + "-queries.png"),
              "Trend aggregation, " + name + ", " + fixedEvents + " events per window: events/s");
    }
    if (!agreed) {
      err.println("bench: engines disagreed on some finished run (see 'digest')");
      return EventideCli.EXIT_FAILED;
    }
    return 0;
  }

  /**
   * Runs one sweep — events per window (at --fixed-queries) or queries (at --fixed-events) — prints
   * each setting, charts events/s; returns whether all engines agreed.
   */
  private boolean sweep(
      PrintWriter out,
      PrintWriter err,
      TrendStreams.Kind stream,
      List<Integer> points,
      boolean varyEvents,
      Path chart,
      String title)
      throws java.io.IOException {
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    DefaultCategoryDataset heap = new DefaultCategoryDataset();
    boolean agreed = true;
    for (int point : points) {
      int n = varyEvents ? point : fixedEvents;
      int k = varyEvents ? workload.fixedQueries : point;
      err.printf(
          Locale.ROOT,
          "bench: %s, %d events per window, %d queries ...%n",
          stream.name().toLowerCase(Locale.ROOT),
          n,
          k);
      err.flush();
      List<TrendsBenchmark.Result> results =
          TrendsBenchmark.compare(
              stream,
              n,
              k,
              chosenEngines(),
              workload.windows,
              warmup,
              budget,
              rounds,
              MIN_MEASURED_SECONDS);
      agreed &= print(out, results);
      for (TrendsBenchmark.Result r : results) {
        data.addValue(r.eventsPerSecond(), r.engine().cliName(), "" + point);
        heap.addValue(r.peakHeapBytes() / 1e6, r.engine().cliName(), "" + point);
      }
    }
    String axis = varyEvents ? "events per window" : "queries";
    Charts.logBars(chart, title, axis, "events/s (log scale)", data);
    Path heapChart =
        chart.resolveSibling(chart.getFileName().toString().replace(".png", "-heap.png"));
    Charts.logBars(heapChart, title.replace("events/s", "peak heap"), axis, "MB (log scale)", heap);
    err.printf(Locale.ROOT, "bench: charts %s, %s%n", chart, heapChart);
    return agreed;
  }

  /** {@code --changes}: what changing the workload costs, per stream, query count and pace. */
  private int benchChanges(PrintWriter out, PrintWriter err) throws java.io.IOException {
    out.printf(
        Locale.ROOT,
        "%-7s %5s %9s %9s %-10s %9s %12s %9s %9s %9s%n",
        "stream",
        "k",
        "every",
        "changes",
        "mode",
        "events",
        "events/s",
        "vs fixed",
        "results",
        "add/rm ms");
    boolean agreed = true;
    for (String name : workload.streams) {
      TrendStreams.Kind stream = TrendBenchOptions.stream(name);
      long window = CHANGES_WINDOW_MILLIS;
      List<Event> events = TrendStreams.events(stream, 1, fixedEvents, workload.windows, window);
      DefaultCategoryDataset data = new DefaultCategoryDataset();
      for (int k : queries) {
        err.printf(Locale.ROOT, "bench: %s, %d queries, changes ...%n", name, k);
        err.flush();
        // Every mode once to warm up the JIT, then --rounds rounds of every mode in turn (so
        // that a machine's drift affects them alike); the fastest run of each mode counts.
        List<Setting> settings = new ArrayList<>();
        settings.add(new Setting(TrendChangesBenchmark.Mode.FIXED, 1));
        for (int every : changeEvery) {
          settings.add(new Setting(TrendChangesBenchmark.Mode.CHANGED, every));
          settings.add(new Setting(TrendChangesBenchmark.Mode.RESTARTED, every));
        }
        TrendChangesBenchmark.Run[] best = new TrendChangesBenchmark.Run[settings.size()];
        for (int round = -1; round < rounds; round++) {
          for (int i = 0; i < settings.size(); i++) {
            Setting setting = settings.get(i);
            TrendChangesBenchmark.Run run =
                TrendChangesBenchmark.run(
                    setting.mode(), stream, k, setting.every(), events, window);
            if (round >= 0 && (best[i] == null || run.seconds() < best[i].seconds())) {
              best[i] = run;
            }
          }
        }
        // Timed after the rounds, on a warm JIT: the median of 5 additions and 5 removals.
        TrendChangesBenchmark.ApplyTime apply =
            TrendChangesBenchmark.applyTime(
                stream, k, events.subList(0, Math.min(events.size(), fixedEvents)), window, 5);
        TrendChangesBenchmark.Run fixed = best[0];
        for (int i = 0; i < settings.size(); i++) {
          TrendChangesBenchmark.Run run = best[i];
          print(out, name, run, fixed, apply);
          data.addValue(
              run.eventsPerSecond(),
              run.mode() == TrendChangesBenchmark.Mode.FIXED
                  ? "fixed"
                  : run.mode().name().toLowerCase(Locale.ROOT) + " every " + run.changeEvery(),
              k + " queries");
          if (run.mode() == TrendChangesBenchmark.Mode.CHANGED
              && run.untouchedDigest() != fixed.untouchedDigest()) {
            agreed = false;
            err.printf(
                Locale.ROOT,
                "bench: %s, %d queries, a change every %d events: the untouched queries'"
                    + " results differ from the fixed workload's%n",
                name,
                k,
                run.changeEvery());
          }
        }
      }
      Path chart = charts.chart("trend-changes-" + name + ".png");
      Charts.logBars(
          chart,
          "Workload changes, " + name + ", " + fixedEvents + " events per window: events/s",
          "workload",
          "events/s (log scale)",
          data);
      err.printf(Locale.ROOT, "bench: chart %s%n", chart);
    }
    out.flush();
    return agreed ? 0 : EventideCli.EXIT_FAILED;
  }

  /** {@code --reading}: lines/s of each reader over each stream's events as JSON lines. */
  private int benchReading(PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "%-7s %-13s %10s %14s %10s%n",
        "stream",
        "reader",
        "lines",
        "lines/s",
        "vs tree");
    for (String name : workload.streams) {
      TrendStreams.Kind stream = TrendBenchOptions.stream(name);
      byte[] lines =
          ReadingBenchmark.lines(
              TrendStreams.events(stream, 1, fixedEvents, workload.windows, CHANGES_WINDOW_MILLIS));
      List<ReadingBenchmark.Result> results = ReadingBenchmark.measure(lines, rounds);
      double tree = results.get(results.size() - 1).linesPerSecond();
      for (ReadingBenchmark.Result r : results) {
        out.printf(
            Locale.ROOT,
            "%-7s %-13s %10d %14.0f %9.2fx%n",
            name,
            r.reader().name().toLowerCase(Locale.ROOT).replace('_', '-'),
            r.lines(),
            r.linesPerSecond(),
            r.linesPerSecond() / tree);
      }
    }
    out.flush();
    return 0;
  }

  /** {@code --floor}: the words the exact arithmetic touches, and what they take at full speed. */
  private int benchFloor(PrintWriter out, PrintWriter err) {
    out.printf(
        Locale.ROOT,
        "%-8s %8s %5s %9s | %14s %6s %8s | %14s %6s %8s | %14s | %9s %9s %9s%n",
        "stream",
        "n/window",
        "k",
        "events",
        "mult-add words",
        "limbs",
        "ns/word",
        "add words",
        "limbs",
        "ns/word",
        "copied words",
        "floor s",
        "run s",
        "run/floor");
    for (String name : workload.streams) {
      TrendStreams.Kind stream = TrendBenchOptions.stream(name);
      for (int n : workload.eventsPerWindow) {
        err.printf(
            Locale.ROOT,
            "bench: %s, %d events per window, %d queries, counting words ...%n",
            name,
            n,
            workload.fixedQueries);
        err.flush();
        ArithmeticFloor.Result r =
            ArithmeticFloor.measure(stream, n, workload.windows, workload.fixedQueries);
        out.printf(
            Locale.ROOT,
            "%-8s %8d %5d %9d | %14d %6d %8.3f | %14d %6d %8.3f | %14d | %9.2f %9.2f %8.2fx%n",
            name,
            n,
            workload.fixedQueries,
            r.events(),
            r.words().multiplyAddWords(),
            r.multiplyAddLimbs(),
            r.multiplyAddNanos(),
            r.words().addWords(),
            r.addLimbs(),
            r.addNanos(),
            r.words().copyWords(),
            r.floorSeconds(),
            r.runSeconds(),
            r.runSeconds() / r.floorSeconds());
        out.flush();
      }
    }
    return 0;
  }

  /** {@code --cold}: phases of a first and a warm run, in fresh JVMs. */
  private int benchCold(PrintWriter out, PrintWriter err) throws java.io.IOException {
    List<Jvm> kinds = jvmKinds();
    out.printf(
        Locale.ROOT,
        "%-8s %8s %5s %-14s %-8s %9s %8s | %8s %8s %8s %8s %8s | %8s %8s %8s %8s %8s | %8s |"
            + " %10s %10s%n",
        "stream",
        "n/window",
        "k",
        "engine",
        "jvm",
        "events",
        "results",
        "workload",
        "plan",
        "read",
        "evaluate",
        "cold ms",
        "workload",
        "plan",
        "read",
        "evaluate",
        "warm ms",
        "jvm ms",
        "cold/first",
        "warm/first");
    Path dir = java.nio.file.Files.createTempDirectory("eventide-cold-");
    Long digest = null;
    boolean agreed = true;
    try {
      for (String name : workload.streams) {
        TrendStreams.Kind stream = TrendBenchOptions.stream(name);
        for (int n : workload.eventsPerWindow) {
          ColdStartBenchmark.write(
              dir,
              TrendStreams.events(stream, 42, n, workload.windows, CHANGES_WINDOW_MILLIS),
              TrendStreams.workload(stream, 42, workload.fixedQueries, CHANGES_WINDOW_MILLIS));
          digest = null;
          for (Engines engine : chosenEngines()) {
            err.printf(
                Locale.ROOT,
                "bench: %s, %d events per window, %s, %d fresh JVMs of each of %d kinds ...%n",
                name,
                n,
                engine.cliName(),
                rounds,
                kinds.size());
            err.flush();
            List<ColdStartBenchmark.Result> results =
                ColdStartBenchmark.measure(dir, engine, kinds, rounds);
            ColdStartBenchmark.Result first = results.get(0);
            for (ColdStartBenchmark.Result r : results) {
              // Every JVM's first and warm runs, and every engine, must give the same results.
              for (ColdStartBenchmark.Phases run : List.of(r.cold(), r.warm())) {
                agreed &= digest == null || digest == run.digest();
                digest = run.digest();
              }
              ColdStartBenchmark.Phases c = r.cold();
              ColdStartBenchmark.Phases w = r.warm();
              out.printf(
                  Locale.ROOT,
                  "%-8s %8d %5d %-14s %-8s %9d %8d | %8.1f %8.1f %8.1f %8.1f %8.1f | %8.1f %8.1f"
                      + " %8.1f %8.1f %8.1f | %8.0f | %9.2fx %9.2fx%n",
                  name,
                  n,
                  workload.fixedQueries,
                  engine.cliName(),
                  r.jvm().name(),
                  c.events(),
                  c.results(),
                  c.workloadMillis(),
                  c.planMillis(),
                  c.readMillis(),
                  c.evaluateMillis(),
                  c.totalMillis(),
                  w.workloadMillis(),
                  w.planMillis(),
                  w.readMillis(),
                  w.evaluateMillis(),
                  w.totalMillis(),
                  r.jvmMillis(),
                  c.totalMillis() / first.cold().totalMillis(),
                  w.totalMillis() / first.warm().totalMillis());
              out.flush();
            }
          }
        }
      }
    } finally {
      for (String file : List.of("events.jsonl", "queries")) {
        java.nio.file.Files.deleteIfExists(dir.resolve(file));
      }
      java.nio.file.Files.deleteIfExists(dir);
    }
    if (!agreed) {
      err.println("bench: engines or runs gave different results (their digests differ)");
      return EventideCli.EXIT_FAILED;
    }
    return 0;
  }

  /** One mode of --changes at one pace. */
  private record Setting(TrendChangesBenchmark.Mode mode, int every) {}

  private static void print(
      PrintWriter out,
      String stream,
      TrendChangesBenchmark.Run run,
      TrendChangesBenchmark.Run fixed,
      TrendChangesBenchmark.ApplyTime apply) {
    out.printf(
        Locale.ROOT,
        "%-7s %5d %9s %9d %-10s %9d %12.0f %8.2fx %9d %9s%n",
        stream,
        run.queries(),
        run.mode() == TrendChangesBenchmark.Mode.FIXED ? "-" : String.valueOf(run.changeEvery()),
        run.changes(),
        run.mode().name().toLowerCase(Locale.ROOT),
        run.events(),
        run.eventsPerSecond(),
        run.eventsPerSecond() / fixed.eventsPerSecond(),
        run.results(),
        run.mode() == TrendChangesBenchmark.Mode.FIXED
            ? String.format(Locale.ROOT, "%.1f/%.1f", apply.addMillis(), apply.removeMillis())
            : "");
    out.flush();
  }

  private List<Engines> chosenEngines() {
    return engines.stream().map(Engines::ofCliName).toList();
  }

  private void validate() {
    workload.check();
    try {
      chosenEngines();
    } catch (IllegalArgumentException e) {
      throw new EventideCli.UsageException(e.getMessage());
    }
    CliChecks.positive("--budget", budget);
    CliChecks.atLeast("--rounds", rounds, 1);
    if (!(warmup >= 0) || Double.isInfinite(warmup)) {
      throw new EventideCli.UsageException("--warmup must not be negative, but was " + warmup);
    }
    CliChecks.atLeast("--fixed-events", fixedEvents, 1);
    queries.forEach(k -> CliChecks.atLeast("--queries", k, 1));
    changeEvery.forEach(n -> CliChecks.atLeast("--change-every", n, 1));
    if (!jvms.isEmpty() && !cold) {
      throw new EventideCli.UsageException("--jvm needs --cold");
    }
    try {
      List<String> names = jvmKinds().stream().map(Jvm::name).toList();
      if (names.stream().distinct().count() != names.size()) {
        throw new EventideCli.UsageException("--jvm names must differ, but were " + names);
      }
    } catch (IllegalArgumentException e) {
      throw new EventideCli.UsageException(e.getMessage());
    }
  }

  /** The kinds of JVM of --cold: --jvm's, or this JVM's Java with no options. */
  private List<Jvm> jvmKinds() {
    return jvms.isEmpty() ? List.of(Jvm.current("this")) : jvms.stream().map(Jvm::parse).toList();
  }

  private static void printHeader(PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "%-7s %8s %5s %-14s %9s %12s %13s %13s %10s %10s %9s  %s%n",
        "stream",
        "n/window",
        "k",
        "engine",
        "events",
        "events/s",
        "ms/window",
        "cpu ms/window",
        "vs GRETA",
        "vs static",
        "peak heap",
        "shared/split bursts, snapshots");
  }

  /** Prints one setting; returns whether all finished runs produced the same results. */
  private static boolean print(PrintWriter out, List<TrendsBenchmark.Result> results) {
    // Without GRETA among the engines there is nothing to compare with: "-".
    TrendsBenchmark.Result greta =
        results.stream().filter(r -> r.engine() == Engines.GRETA).findFirst().orElse(null);
    Long digest = null;
    boolean agreed = true;
    for (TrendsBenchmark.Result r : results) {
      if (r.finished()) {
        agreed &= digest == null || digest == r.resultDigest();
        digest = r.resultDigest();
      }
    }
    for (TrendsBenchmark.Result r : results) {
      // A run stopped at its budget gives an upper bound of events/s, a lower bound of ms.
      String bound = r.finished() ? "" : "<";
      String ratioBound =
          greta == null || r.finished() == greta.finished()
              ? (r.finished() ? "" : "~")
              : r.finished() ? ">" : "<";
      out.printf(
          Locale.ROOT,
          "%-7s %8d %5d %-14s %9d %12s %13s %13s %10s %10s %8.0fM  %s%n",
          r.stream().name().toLowerCase(Locale.ROOT),
          r.eventsPerWindow(),
          r.queries(),
          r.engine().cliName(),
          r.events(),
          bound + String.format(Locale.ROOT, "%.0f", r.eventsPerSecond()),
          (r.finished() ? "" : ">") + String.format(Locale.ROOT, "%.1f", r.millisPerWindow()),
          (r.finished() ? "" : ">") + String.format(Locale.ROOT, "%.1f", r.cpuMillisPerWindow()),
          greta == null
              ? "-"
              : r == greta
                  ? "1.0x"
                  : ratioBound
                      + String.format(
                          Locale.ROOT, "%.1fx", r.eventsPerSecond() / greta.eventsPerSecond()),
          Double.isNaN(r.speedupOverStatic())
              ? "-"
              : String.format(Locale.ROOT, "%.2fx", r.speedupOverStatic()),
          r.peakHeapBytes() / 1e6,
          r.engine() == Engines.GRETA || r.engine() == Engines.UNSHARED
              ? ""
              : r.statistics().getOrDefault("sharedBursts", 0L)
                  + "/"
                  + r.statistics().getOrDefault("splitBursts", 0L)
                  + " of "
                  + r.statistics().getOrDefault("bursts", 0L)
                  + ", "
                  + r.statistics().getOrDefault("snapshots", 0L));
    }
    out.flush();
    return agreed;
  }
}
