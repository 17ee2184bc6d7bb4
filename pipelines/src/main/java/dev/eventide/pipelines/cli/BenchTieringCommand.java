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
import picocli.CommandLine;
import picocli.CommandLine.Command;
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
      "Prints heap after GC (median, peak), whether a run ran out of memory, events/s (and the"
          + " ratio to native Flink heap), ingestion rate and p50/p99 latency of late results;"
          + " writes PNG charts of heap and throughput against past windows."
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
      names = "--timeout",
      defaultValue = "300",
      paramLabel = "SECONDS",
      description = "A run still going after this long is stopped (default: ${DEFAULT-VALUE}).")
  long timeoutSeconds;

  @Option(
      names = "--chart-dir",
      defaultValue = "bench-charts",
      paramLabel = "DIR",
      description = "Where the PNG charts go (default: ${DEFAULT-VALUE}).")
  Path chartDir;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    TieringBenchmark.Plan plan = plan();
    List<TieringBenchmark.Result> results = new TieringBenchmark(plan, err).run();
    TieringBenchmark.printTable(results, out);
    for (Path chart : TieringBenchmark.writeCharts(results, chartDir)) {
      err.println("wrote " + chart);
    }
    return 0;
  }

  private TieringBenchmark.Plan plan() throws java.io.IOException {
    if (eventsPerWindow < 1 || eventsPerWindow > 60_000 || windows < 1 || timeoutSeconds < 1) {
      throw new EventideCli.UsageException(
          "--events-per-window must be in [1, 60000] (one event per ms of a 1 min window),"
              + " --windows and --timeout positive");
    }
    if (!(lateFraction >= 0 && lateFraction <= 1)) {
      throw new EventideCli.UsageException("--late-fraction must be in [0, 1]");
    }
    if (storeDelayMillis < 0) {
      throw new EventideCli.UsageException("--store-delay-ms must not be negative");
    }
    if (pastWindows.stream().anyMatch(n -> n < 0)) {
      throw new EventideCli.UsageException("--past-windows must not be negative");
    }
    if (!maxHeap.matches("[0-9]+[kmgKMG]?")) {
      throw new EventideCli.UsageException("--xmx must be a JVM heap size such as 256m");
    }
    List<Workload> chosenWorkloads = new ArrayList<>();
    for (String name : workloads) {
      try {
        chosenWorkloads.add(Workload.valueOf(name.toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        throw new EventideCli.UsageException(
            "unknown workload '" + name + "'; expected average or bigrams");
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
        timeoutSeconds,
        Files.createTempDirectory("eventide-bench-tiering"));
  }
}
