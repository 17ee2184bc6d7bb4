package dev.eventide.pipelines.cli;

import dev.eventide.pipelines.bench.Charts;
import dev.eventide.pipelines.bench.TrendStreams;
import dev.eventide.pipelines.bench.TrendsBeamBenchmark;
import dev.eventide.pipelines.trends.TrendPipeline;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.jfree.data.category.DefaultCategoryDataset;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code eventide bench trends-beam}: TrendAggregate on Beam's runners against the bare core. */
@Command(
    name = "trends-beam",
    mixinStandardHelpOptions = true,
    versionProvider = EventideCli.Version.class,
    description = {
      "Throughput of TrendAggregate on Beam runners against the bare HAMLET core on the same"
          + " stream and queries, at --fixed-queries for each --events-per-window; every runner's"
          + " results must equal the core's. Prints events/s and the ratio to the core, the"
          + " runner's start-up and shut-down (the same pipeline without events) and the ratio"
          + " beyond them, and writes PNG charts."
    },
    sortOptions = false)
final class BenchTrendsBeamCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin TrendBenchOptions workload;

  @Option(
      names = "--runners",
      split = ",",
      defaultValue = "direct,flink",
      paramLabel = "RUNNER",
      description =
          "direct, flink, or direct-changes-stream, flink-changes-stream: the workload fixed but"
              + " sent through the machinery of changes sent while the job runs, to show its cost"
              + " (default: ${DEFAULT-VALUE}).")
  List<String> runners;

  @Option(
      names = "--parallelism",
      defaultValue = "2",
      paramLabel = "N",
      description = "Embedded Flink's parallelism (default: ${DEFAULT-VALUE}).")
  int parallelism;

  @Option(
      names = "--input",
      defaultValue = "bounded",
      paramLabel = "INPUT",
      description =
          "bounded: the events as a bounded input, whose watermark stays at the start of time until"
              + " it is all read (every window fires at the end); stream: as a stream whose"
              + " watermark follows the events read, as a live source's would (default:"
              + " ${DEFAULT-VALUE}).")
  String input;

  @Mixin ChartOptions charts;

  @Override
  public Integer call() throws Exception {
    workload.check();
    charts.check();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    List<TrendsBeamBenchmark.Target> targets;
    try {
      targets = runners.stream().map(TrendsBeamBenchmark.Target::ofCliName).toList();
    } catch (IllegalArgumentException e) {
      throw new EventideCli.UsageException(e.getMessage());
    }
    if (parallelism < 1) {
      throw new EventideCli.UsageException("--parallelism must be >= 1");
    }
    TrendPipeline.Input events =
        switch (input) {
          case "bounded" -> TrendPipeline.Input.BOUNDED;
          case "stream" -> TrendPipeline.Input.STREAM;
          default ->
              throw new EventideCli.UsageException(
                  "--input must be bounded or stream, not '" + input + "'");
        };
    out.printf(
        Locale.ROOT,
        "%-7s %8s %5s %-20s %9s %12s %9s %10s %9s %12s%n",
        "stream",
        "n/window",
        "k",
        "runner",
        "events",
        "events/s",
        "seconds",
        "vs core",
        "start-up",
        "beyond it");
    boolean same = true;
    for (String name : workload.streams) {
      TrendStreams.Kind stream = TrendBenchOptions.stream(name);
      DefaultCategoryDataset data = new DefaultCategoryDataset();
      for (int n : workload.eventsPerWindow) {
        err.printf(
            Locale.ROOT,
            "bench: %s, %d events per window, %d queries, %s input, on Beam ...%n",
            name,
            n,
            workload.fixedQueries,
            input);
        err.flush();
        List<TrendsBeamBenchmark.Result> results =
            TrendsBeamBenchmark.compare(
                stream, n, workload.fixedQueries, workload.windows, targets, parallelism, events);
        TrendsBeamBenchmark.Result core = results.get(0);
        for (TrendsBeamBenchmark.Result r : results) {
          same &= r.sameResults();
          double beyond = core.seconds() / r.secondsBeyondStartup();
          out.printf(
              Locale.ROOT,
              "%-7s %8d %5d %-20s %9d %12.0f %9.2f %9.2fx %9.2f %11s%s%n",
              name,
              n,
              r.queries(),
              r.target().cliName(),
              r.events(),
              r.eventsPerSecond(),
              r.seconds(),
              r.eventsPerSecond() / core.eventsPerSecond(),
              r.startupSeconds(),
              Double.isNaN(beyond) ? "-" : String.format(Locale.ROOT, "%.2fx", beyond),
              r.sameResults() ? "" : "  DIFFERENT RESULTS");
          data.addValue(r.eventsPerSecond(), r.target().cliName(), "" + n);
        }
        out.flush();
      }
      Path chart = charts.chart("trends-" + name + "-beam.png");
      Charts.logBars(
          chart,
          "TrendAggregate on Beam vs the core, " + name + ", " + workload.fixedQueries + " queries",
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
}
