package dev.eventide.pipelines.cli;

import dev.eventide.pipelines.bench.BurstSharingSweep;
import dev.eventide.pipelines.bench.Charts;
import dev.eventide.pipelines.bench.TrendStreams;
import dev.eventide.pipelines.bench.TrendsBeamBenchmark;
import dev.eventide.pipelines.bench.TrendsBenchmark;
import dev.eventide.trends.engine.Engines;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.jfree.data.category.DefaultCategoryDataset;
import picocli.CommandLine;
import picocli.CommandLine.Command;
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
          + " sharing; or, with --burst-sweep, where sharing a burst pays.",
      "Every engine's results must be equal (a digest is compared); prints events/s and the"
          + " speed-up over GRETA, ms per window elapsed and in the measuring thread's CPU time"
          + " (less disturbed by other work on a shared machine), the speed-up over HAMLET static"
          + " paired per round (the median over rounds of static's CPU time over the engine's in"
          + " the same round), and writes PNG charts. A run over its time budget stops early"
          + " and is marked: its events/s ('<') is then an upper bound, its speed-up over a"
          + " stopped GRETA ('>') a lower bound."
    })
final class BenchTrendsCommand implements Callable<Integer> {

  /** Short settings are measured in more rounds, until each engine has run for this long. */
  private static final double MIN_MEASURED_SECONDS = 1;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--streams",
      split = ",",
      defaultValue = "rides,stocks",
      paramLabel = "STREAM",
      description =
          "Streams: rides, stocks, scattered (rides with short Travel runs and a speed limit of"
              + " its own per query: bursts hardly worth sharing) (default: ${DEFAULT-VALUE}).")
  List<String> streams;

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
      names = "--events-per-window",
      split = ",",
      defaultValue = "1000,10000,100000,1000000",
      paramLabel = "N",
      description = "Events per window to vary (default: ${DEFAULT-VALUE}).")
  List<Integer> eventsPerWindow;

  @Option(
      names = "--queries",
      split = ",",
      defaultValue = "5,25,100,1000",
      paramLabel = "K",
      description = "Workload sizes to vary (default: ${DEFAULT-VALUE}).")
  List<Integer> queries;

  @Option(
      names = "--fixed-queries",
      defaultValue = "25",
      paramLabel = "K",
      description = "Queries while events per window vary (default: ${DEFAULT-VALUE}).")
  int fixedQueries;

  @Option(
      names = "--fixed-events",
      defaultValue = "10000",
      paramLabel = "N",
      description = "Events per window while queries vary (default: ${DEFAULT-VALUE}).")
  int fixedEvents;

  @Option(
      names = "--windows",
      defaultValue = "2",
      paramLabel = "W",
      description = "Windows per run (default: ${DEFAULT-VALUE}).")
  int windows;

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
      names = "--beam",
      description =
          "Measure TrendAggregate on Beam runners against the bare core instead (HAMLET, at"
              + " --fixed-queries, for each --events-per-window).")
  boolean beam;

  @Option(
      names = "--runners",
      split = ",",
      defaultValue = "direct,flink",
      paramLabel = "RUNNER",
      description = "With --beam: direct, flink (default: ${DEFAULT-VALUE}).")
  List<String> runners;

  @Option(
      names = "--parallelism",
      defaultValue = "2",
      paramLabel = "N",
      description = "With --beam: embedded Flink's parallelism (default: ${DEFAULT-VALUE}).")
  int parallelism;

  @Option(
      names = "--burst-sweep",
      description =
          "Measure where sharing a burst pays instead: dynamic, static and unshared on bursts of"
              + " each --burst-lengths read by classes of each --class-sizes identical queries,"
              + " with small (10 bursts per window) and larger (300) counts; nanoseconds per"
              + " burst.")
  boolean burstSweep;

  @Option(
      names = "--burst-lengths",
      split = ",",
      defaultValue = "1,2,4,16",
      paramLabel = "B",
      description = "With --burst-sweep: events per burst (default: ${DEFAULT-VALUE}).")
  List<Integer> burstLengths;

  @Option(
      names = "--class-sizes",
      split = ",",
      defaultValue = "2,4,8",
      paramLabel = "Q",
      description = "With --burst-sweep: queries per class (default: ${DEFAULT-VALUE}).")
  List<Integer> classSizes;

  @Option(
      names = "--chart-dir",
      paramLabel = "DIR",
      defaultValue = "eventide-output/bench",
      description = "Where the PNG charts go (default: ${DEFAULT-VALUE}).")
  Path chartDir;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    validate();
    CliFiles.checkWritableDirectory("--chart-dir", chartDir);
    if (beam) {
      return beam(out, err);
    }
    if (burstSweep) {
      return burstSweep(out, err);
    }
    printHeader(out);
    boolean agreed = true;
    for (String name : streams) {
      TrendStreams.Kind stream = TrendStreams.Kind.valueOf(name.toUpperCase(Locale.ROOT));
      agreed &=
          sweep(
              out,
              err,
              stream,
              eventsPerWindow,
              true,
              chartDir.resolve("trends-" + name + "-events.png"),
              "Trend aggregation, " + name + ", " + fixedQueries + " queries: events/s");
      agreed &=
          sweep(
              out,
              err,
              stream,
              queries,
              false,
              chartDir.resolve("trends-" + name + "-queries.png"),
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
      int k = varyEvents ? fixedQueries : point;
      err.printf(
          Locale.ROOT,
          "bench: %s, %d events per window, %d queries ...%n",
          stream.name().toLowerCase(Locale.ROOT),
          n,
          k);
      err.flush();
      List<TrendsBenchmark.Result> results =
          TrendsBenchmark.compare(
              stream, n, k, chosenEngines(), windows, warmup, budget, rounds, MIN_MEASURED_SECONDS);
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

  /** The --beam comparison: the core against TrendAggregate on each runner. */
  private int beam(PrintWriter out, PrintWriter err) throws Exception {
    List<TrendsBeamBenchmark.Target> targets;
    try {
      targets = runners.stream().map(TrendsBeamBenchmark.Target::ofCliName).toList();
    } catch (IllegalArgumentException e) {
      throw new EventideCli.UsageException(e.getMessage());
    }
    if (parallelism < 1) {
      throw new EventideCli.UsageException("--parallelism must be >= 1");
    }
    out.printf(
        Locale.ROOT,
        "%-7s %8s %5s %-7s %9s %12s %9s %10s%n",
        "stream",
        "n/window",
        "k",
        "runner",
        "events",
        "events/s",
        "seconds",
        "vs core");
    boolean same = true;
    for (String name : streams) {
      TrendStreams.Kind stream = TrendStreams.Kind.valueOf(name.toUpperCase(Locale.ROOT));
      DefaultCategoryDataset data = new DefaultCategoryDataset();
      for (int n : eventsPerWindow) {
        err.printf(
            Locale.ROOT,
            "bench: %s, %d events per window, %d queries, on Beam ...%n",
            name,
            n,
            fixedQueries);
        err.flush();
        List<TrendsBeamBenchmark.Result> results =
            TrendsBeamBenchmark.compare(stream, n, fixedQueries, windows, targets, parallelism);
        double core = results.get(0).eventsPerSecond();
        for (TrendsBeamBenchmark.Result r : results) {
          same &= r.sameResults();
          out.printf(
              Locale.ROOT,
              "%-7s %8d %5d %-7s %9d %12.0f %9.2f %9.2fx%s%n",
              name,
              n,
              r.queries(),
              r.target().cliName(),
              r.events(),
              r.eventsPerSecond(),
              r.seconds(),
              r.eventsPerSecond() / core,
              r.sameResults() ? "" : "  DIFFERENT RESULTS");
          data.addValue(r.eventsPerSecond(), r.target().cliName(), "" + n);
        }
        out.flush();
      }
      Path chart = chartDir.resolve("trends-" + name + "-beam.png");
      Charts.logBars(
          chart,
          "TrendAggregate on Beam vs the core, " + name + ", " + fixedQueries + " queries",
          "events per window",
          "events/s (log scale)",
          data);
      err.printf(Locale.ROOT, "bench: chart %s%n", chart);
    }
    if (!same) {
      err.println("bench: a runner's results differ from the core's");
      return EventideCli.EXIT_FAILED;
    }
    return 0;
  }

  /** The --burst-sweep table and chart. */
  private int burstSweep(PrintWriter out, PrintWriter err) throws java.io.IOException {
    out.printf(
        Locale.ROOT,
        "%5s %7s %13s %13s %13s %13s %14s %13s%n",
        "burst",
        "queries",
        "bursts/window",
        "dynamic ns",
        "static ns",
        "unshared ns",
        "dynamic shared",
        "vs static");
    err.println(
        "bench: ns per burst: the fastest run of each engine; vs static: how many times faster"
            + " dynamic is than static, the median over rounds of their ratio in one round");
    for (int perWindow : new int[] {10, 300}) {
      DefaultCategoryDataset data = new DefaultCategoryDataset();
      for (int b : burstLengths) {
        for (int q : classSizes) {
          err.printf(
              Locale.ROOT,
              "bench: bursts of %d, %d queries, %d bursts per window ...%n",
              b,
              q,
              perWindow);
          err.flush();
          BurstSharingSweep.Result r = BurstSharingSweep.measure(b, q, perWindow, 200_000, rounds);
          out.printf(
              Locale.ROOT,
              "%5d %7d %13d %13.0f %13.0f %13.0f %14s %12.2fx%n",
              b,
              q,
              perWindow,
              r.dynamicNanos(),
              r.staticNanos(),
              r.unsharedNanos(),
              r.sharedBursts() + " of " + r.bursts(),
              r.dynamicOverStatic());
          out.flush();
          String setting = "b" + b + " q" + q;
          data.addValue(r.dynamicNanos(), "hamlet", setting);
          data.addValue(r.staticNanos(), "hamlet-static", setting);
          data.addValue(r.unsharedNanos(), "unshared", setting);
        }
      }
      Path chart = chartDir.resolve("trends-burst-sweep-w" + perWindow + ".png");
      Charts.logBars(
          chart,
          "Sharing a burst of b events in a class of q queries, "
              + perWindow
              + " bursts per window",
          "burst length b, class size q",
          "ns per burst (log scale)",
          data);
      err.printf(Locale.ROOT, "bench: chart %s%n", chart);
    }
    return 0;
  }

  private List<Engines> chosenEngines() {
    return engines.stream().map(Engines::ofCliName).toList();
  }

  private void validate() {
    try {
      chosenEngines();
    } catch (IllegalArgumentException e) {
      throw new EventideCli.UsageException(e.getMessage());
    }
    CliChecks.atLeast("--windows", windows, 1);
    CliChecks.positive("--budget", budget);
    CliChecks.atLeast("--rounds", rounds, 1);
    if (!(warmup >= 0) || Double.isInfinite(warmup)) {
      throw new EventideCli.UsageException("--warmup must not be negative, but was " + warmup);
    }
    CliChecks.atLeast("--fixed-queries", fixedQueries, 1);
    CliChecks.atLeast("--fixed-events", fixedEvents, 1);
    burstLengths.forEach(b -> CliChecks.atLeast("--burst-lengths", b, 1));
    classSizes.forEach(q -> CliChecks.atLeast("--class-sizes", q, 1));
    eventsPerWindow.forEach(n -> CliChecks.atLeast("--events-per-window", n, 1));
    queries.forEach(k -> CliChecks.atLeast("--queries", k, 1));
    for (String name : streams) {
      if (!name.equals("rides") && !name.equals("stocks") && !name.equals("scattered")) {
        throw new EventideCli.UsageException(
            "--streams: unknown stream '" + name + "'; expected rides, stocks or scattered");
      }
    }
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
    TrendsBenchmark.Result greta =
        results.stream()
            .filter(r -> r.engine() == Engines.GRETA)
            .findFirst()
            .orElse(results.get(results.size() - 1));
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
          r.finished() == greta.finished() ? (r.finished() ? "" : "~") : r.finished() ? ">" : "<";
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
          r == greta
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
