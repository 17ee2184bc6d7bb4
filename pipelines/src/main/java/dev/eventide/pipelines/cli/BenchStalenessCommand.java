package dev.eventide.pipelines.cli;

import dev.eventide.pipelines.bench.Charts;
import dev.eventide.pipelines.bench.StalenessBenchmark;
import dev.eventide.pipelines.bench.StalenessBenchmark.Lateness;
import dev.eventide.pipelines.bench.StalenessBenchmark.Point;
import dev.eventide.tiering.internal.lateness.LatenessModel;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code eventide bench staleness}: Aion's staleness trigger against Δt and Δe (experiment Q4). */
@Command(
    name = "staleness",
    mixinStandardHelpOptions = true,
    versionProvider = EventideCli.Version.class,
    description = {
      "Aion's experiment Q4 with TieredWindow's planner: the largest staleness t·n/(T·N) between"
          + " consecutive late executions of a window, for 1 to N executions, of the staleness"
          + " trigger (aion), a periodic one (deltat) and one every N/m late values (deltae), over"
          + " uniform, exponential, log-normal and Pareto lateness; plans are made from a learning"
          + " sample and judged on a held-out one.",
      "Prints max staleness per count with the ratios to aion, then the fewest executions that"
          + " keep bounds of 10%%, 5%% and 1%%, then predictive cleanup against the fixed bound"
          + " (the share of late values inside the bound, and how long state is kept); writes a PNG"
          + " chart per distribution."
    })
final class BenchStalenessCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--distributions",
      split = ",",
      defaultValue = "unif,exp,lnorm,pareto",
      paramLabel = "D",
      description = "Lateness distributions: unif, exp, lnorm, pareto (default: ${DEFAULT-VALUE}).")
  List<String> distributions;

  @Option(
      names = "--max-executions",
      defaultValue = "20",
      paramLabel = "N",
      description = "Executions per window to go up to (default: ${DEFAULT-VALUE}).")
  int maxExecutions;

  @Option(
      names = "--limit",
      defaultValue = "30",
      paramLabel = "N",
      description =
          "Most executions tried when looking for the fewest that keep a bound (default:"
              + " ${DEFAULT-VALUE}).")
  int limit;

  @Option(
      names = "--learning-sample",
      defaultValue = "2000",
      paramLabel = "N",
      description = "Late values the plans learn from (default: ${DEFAULT-VALUE}).")
  int learningSample;

  @Option(
      names = "--held-out-sample",
      defaultValue = "20000",
      paramLabel = "N",
      description = "Late values the plans are judged on (default: ${DEFAULT-VALUE}).")
  int heldOutSample;

  @Option(
      names = "--seed",
      defaultValue = "1",
      paramLabel = "N",
      description = "Seed of both samples (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--coverage",
      defaultValue = "0.99",
      paramLabel = "Q",
      description =
          "Predictive cleanup: the fraction of late values a bound should cover (default:"
              + " ${DEFAULT-VALUE}).")
  double coverage;

  @Option(
      names = "--confidence",
      defaultValue = "0.95",
      paramLabel = "C",
      description = "Predictive cleanup: the confidence of that (default: ${DEFAULT-VALUE}).")
  double confidence;

  @Option(
      names = "--cleanup-windows",
      defaultValue = "2000",
      paramLabel = "N",
      description = "Predictive cleanup: windows simulated (default: ${DEFAULT-VALUE}).")
  int cleanupWindows;

  @Mixin ChartOptions charts;

  /** The cleanup bound T: staleness is relative to it, so its size changes no figure. */
  private static final long CLEANUP_MILLIS = 3_600_000;

  private static final List<Double> BOUNDS = List.of(0.1, 0.05, 0.01);

  private static final int LATE_VALUES_PER_WINDOW = 50;

  @Override
  public Integer call() throws Exception {
    CliChecks.atLeast("--max-executions", maxExecutions, 1);
    CliChecks.atLeast("--limit", limit, 1);
    CliChecks.atLeast("--learning-sample", learningSample, 10);
    CliChecks.atLeast("--held-out-sample", heldOutSample, 10);
    CliChecks.atLeast("--cleanup-windows", cleanupWindows, 1);
    try {
      LatenessModel.of(CLEANUP_MILLIS, coverage, confidence, LatenessModel.DEFAULT_SAMPLE_SIZE);
    } catch (IllegalArgumentException e) {
      throw new EventideCli.UsageException("--coverage/--confidence: " + e.getMessage());
    }
    charts.check();
    List<Lateness> chosen = new ArrayList<>();
    for (String name : distributions) {
      chosen.add(
          List.of(Lateness.values()).stream()
              .filter(l -> l.label().equals(name.toLowerCase(Locale.ROOT)))
              .findFirst()
              .orElseThrow(
                  () ->
                      new EventideCli.UsageException(
                          "--distributions: unknown distribution '"
                              + name
                              + "'; expected unif, exp, lnorm or pareto")));
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    StalenessBenchmark bench =
        new StalenessBenchmark(CLEANUP_MILLIS, learningSample, heldOutSample, seed);
    List<Point> curve = bench.curve(chosen, maxExecutions);
    StalenessBenchmark.printCurve(curve, out);
    out.println();
    StalenessBenchmark.printFewest(bench.fewest(chosen, BOUNDS, limit), limit, out);
    out.println();
    out.printf(
        Locale.ROOT,
        "predictive cleanup (coverage %.2f, confidence %.2f; %d windows of %d late values):%n",
        coverage,
        confidence,
        cleanupWindows,
        LATE_VALUES_PER_WINDOW);
    StalenessBenchmark.printCleanup(
        bench.cleanup(chosen, coverage, confidence, cleanupWindows, LATE_VALUES_PER_WINDOW), out);
    for (Lateness lateness : chosen) {
      XYSeriesCollection data = new XYSeriesCollection();
      for (StalenessBenchmark.Trigger trigger : StalenessBenchmark.Trigger.values()) {
        XYSeries series = new XYSeries(trigger.label());
        for (Point p : curve) {
          if (p.lateness() == lateness && p.trigger() == trigger) {
            series.add(p.executions(), Math.log10(Math.max(p.maxStaleness(), 1e-9)));
          }
        }
        data.addSeries(series);
      }
      Path chart = charts.chart("staleness-" + lateness.label() + ".png");
      Charts.lines(
          chart,
          "Largest staleness per late execution plan, " + lateness.label() + " lateness",
          "executions per window",
          "log10 of max staleness",
          data);
      err.println("wrote " + chart);
    }
    return 0;
  }
}
