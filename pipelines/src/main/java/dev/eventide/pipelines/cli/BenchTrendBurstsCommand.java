package dev.eventide.pipelines.cli;

import dev.eventide.pipelines.bench.BurstSharingSweep;
import dev.eventide.pipelines.bench.Charts;
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

/** {@code eventide bench trend-bursts}: where sharing a burst among HAMLET's queries pays. */
@Command(
    name = "trend-bursts",
    mixinStandardHelpOptions = true,
    versionProvider = EventideCli.Version.class,
    description = {
      "Where sharing a burst pays: HAMLET dynamic, static and unshared on bursts of each"
          + " --burst-lengths read by classes of each --class-sizes identical queries, with small"
          + " (10 bursts per window) and larger (300) counts; nanoseconds per burst, and PNG"
          + " charts."
    },
    sortOptions = false)
final class BenchTrendBurstsCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--burst-lengths",
      split = ",",
      defaultValue = "1,2,4,16",
      paramLabel = "B",
      description = "Events per burst (default: ${DEFAULT-VALUE}).")
  List<Integer> burstLengths;

  @Option(
      names = "--class-sizes",
      split = ",",
      defaultValue = "2,4,8",
      paramLabel = "Q",
      description = "Queries per class (default: ${DEFAULT-VALUE}).")
  List<Integer> classSizes;

  @Option(
      names = "--rounds",
      defaultValue = "3",
      paramLabel = "R",
      description =
          "Measured rounds; each engine's fastest counts, and the median of the rounds' ratios"
              + " (default: ${DEFAULT-VALUE}).")
  int rounds;

  @Mixin ChartOptions charts;

  @Override
  public Integer call() throws Exception {
    burstLengths.forEach(b -> CliChecks.atLeast("--burst-lengths", b, 1));
    classSizes.forEach(q -> CliChecks.atLeast("--class-sizes", q, 1));
    CliChecks.atLeast("--rounds", rounds, 1);
    charts.check();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
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
      Path chart = charts.chart("trends-burst-sweep-w" + perWindow + ".png");
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
}
