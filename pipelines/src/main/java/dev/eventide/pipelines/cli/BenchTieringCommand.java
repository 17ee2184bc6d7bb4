package dev.eventide.pipelines.cli;

import dev.eventide.pipelines.bench.tiering.TieringBenchmark;
import dev.eventide.pipelines.bench.tiering.Variant;
import dev.eventide.pipelines.bench.tiering.Workload;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code eventide bench tiering}: TieredWindow against Beam's windowing, heap and throughput. */
@Command(
    name = "tiering",
    mixinStandardHelpOptions = true,
    versionProvider = EventideCli.Version.class,
    description = {
      "The Aion 'average' and 'bigrams' workloads with allowed lateness of 1 to 16 past"
          + " windows, each variant in a JVM of its own with the same -Xmx: TieredWindow with and"
          + " without pre-staging (embedded Flink), Beam's windowing on the DirectRunner, on"
          + " embedded Flink with heap state and with RocksDB state.",
      "Prints heap after GC (median, peak), the share of the run's time in GC pauses, whether"
          + " a run ran out of memory (and of what), events/s (and the ratio to native Flink"
          + " heap), ingestion rate and p50/p99 latency of late results; a run stopped at the"
          + " timeout reports its last GC status. Writes PNG charts of heap and throughput"
          + " against past windows. Every run's JVM has 256 MB of direct memory (embedded Flink's"
          + " network buffers), apart from -Xmx."
    })
final class BenchTieringCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--workloads",
      split = ",",
      defaultValue = "average,bigrams",
      paramLabel = "W",
      description = "Workloads: average, bigrams (default: ${DEFAULT-VALUE}).")
  List<String> workloads;

  @Option(
      names = "--variants",
      split = ",",
      defaultValue =
          "tiered,tiered-no-prestage,native-direct,native-flink-heap,native-flink-rocksdb",
      paramLabel = "V",
      description = "Variants (default: ${DEFAULT-VALUE}).")
  List<String> variants;

  @Option(
      names = "--past-windows",
      split = ",",
      defaultValue = "1,4,16",
      paramLabel = "N",
      description = "Allowed lateness, in windows, to vary (default: ${DEFAULT-VALUE}).")
  List<Integer> pastWindows;

  @Option(
      names = "--events-per-window",
      defaultValue = "20000",
      paramLabel = "N",
      description = "Events per 1 min window, at most 60000 (default: ${DEFAULT-VALUE}).")
  int eventsPerWindow;

  @Option(
      names = "--windows",
      defaultValue = "24",
      paramLabel = "N",
      description = "Windows of events per run (default: ${DEFAULT-VALUE}).")
  int windows;

  @Option(
      names = "--late-fraction",
      defaultValue = "0.2",
      paramLabel = "F",
      description =
          "Share of events that arrive late, log-normal(1, 1) windows late (default:"
              + " ${DEFAULT-VALUE}).")
  double lateFraction;

  @Option(
      names = "--store-delay-ms",
      defaultValue = "0",
      paramLabel = "MS",
      description =
          "Extra time every block read and write of the tiered variants takes, to stand for a"
              + " remote store such as GCS (default: ${DEFAULT-VALUE}).")
  long storeDelayMillis;

  @Option(
      names = "--xmx",
      defaultValue = "256m",
      paramLabel = "SIZE",
      description = "Heap of every run's JVM (default: ${DEFAULT-VALUE}).")
  String maxHeap;

  @Option(
      names = "--gc",
      defaultValue = "g1",
      paramLabel = "GC",
      description =
          "Garbage collector of every run's JVM: g1, or parallel, whose GC overhead limit ends a"
              + " run that spends nearly all its time collecting with an out-of-memory error"
              + " instead of letting it crawl on (default: ${DEFAULT-VALUE}).")
  String gc;

  @Option(
      names = "--timeout",
      defaultValue = "300",
      paramLabel = "SECONDS",
      description = "A run still going after this long is stopped (default: ${DEFAULT-VALUE}).")
  long timeoutSeconds;

  @Mixin ChartOptions charts;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    TieringBenchmark.Plan plan = plan();
    List<TieringBenchmark.Result> results = new TieringBenchmark(plan, err).run();
    TieringBenchmark.printTable(results, out);
    for (Path chart : TieringBenchmark.writeCharts(results, charts.chartDir)) {
      err.println("wrote " + chart);
    }
    return 0;
  }

  /** The smallest heap a run's JVM starts a pipeline in. */
  private static final long MIN_HEAP_BYTES = 64L << 20;

  private void checkHeap() {
    Matcher m = Pattern.compile("([0-9]{1,12})([kmgKMG]?)").matcher(maxHeap);
    if (!m.matches()) {
      throw new EventideCli.UsageException(
          "--xmx must be a JVM heap size such as 256m or 2g, but was '" + maxHeap + "'");
    }
    long bytes =
        Long.parseLong(m.group(1))
            << switch (m.group(2).toLowerCase(Locale.ROOT)) {
              case "k" -> 10;
              case "m" -> 20;
              case "g" -> 30;
              default -> 0;
            };
    if (bytes < MIN_HEAP_BYTES) {
      throw new EventideCli.UsageException(
          "--xmx " + maxHeap + " is too small: a run needs a heap of at least 64m");
    }
  }

  private TieringBenchmark.Plan plan() throws java.io.IOException {
    if (eventsPerWindow < 1 || eventsPerWindow > 60_000) {
      throw new EventideCli.UsageException(
          "--events-per-window must be from 1 to 60000 (one event per ms of a 1 min window), but"
              + " was "
              + eventsPerWindow);
    }
    CliChecks.atLeast("--windows", windows, 1);
    CliChecks.atLeast("--timeout", timeoutSeconds, 1);
    if (!(lateFraction >= 0 && lateFraction <= 1)) {
      throw new EventideCli.UsageException(
          "--late-fraction must be from 0 to 1, but was " + lateFraction);
    }
    CliChecks.atLeast("--store-delay-ms", storeDelayMillis, 0);
    pastWindows.forEach(n -> CliChecks.atLeast("--past-windows", n, 0));
    checkHeap();
    TieringBenchmark.Collector collector;
    try {
      collector = TieringBenchmark.Collector.valueOf(gc.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new EventideCli.UsageException(
          "--gc: unknown collector '" + gc + "'; expected g1 or parallel");
    }
    charts.check();
    List<Workload> chosenWorkloads = new ArrayList<>();
    for (String name : workloads) {
      try {
        chosenWorkloads.add(Workload.valueOf(name.toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        throw new EventideCli.UsageException(
            "--workloads: unknown workload '" + name + "'; expected average or bigrams");
      }
    }
    List<Variant> chosenVariants = new ArrayList<>();
    for (String name : variants) {
      try {
        chosenVariants.add(Variant.fromCliName(name));
      } catch (IllegalArgumentException e) {
        throw new EventideCli.UsageException(e.getMessage());
      }
    }
    return new TieringBenchmark.Plan(
        chosenWorkloads,
        chosenVariants,
        pastWindows,
        eventsPerWindow,
        windows,
        lateFraction,
        storeDelayMillis,
        maxHeap,
        collector,
        timeoutSeconds,
        Files.createTempDirectory("eventide-bench-tiering"));
  }
}
