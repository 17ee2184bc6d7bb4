package dev.eventide.pipelines.bench.tiering;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.eventide.pipelines.bench.Charts;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * {@code eventide bench tiering}: every variant × workload × allowed lateness in a JVM of its own
 * with the same {@code -Xmx}, side by side; a table with ratios to Beam's native windowing on
 * Flink's heap, and charts of heap and throughput against the past windows kept.
 */
public final class TieringBenchmark {
  /** The exit status of a JVM started with {@code -XX:+ExitOnOutOfMemoryError}. */
  private static final int OUT_OF_MEMORY_EXIT = 3;

  /**
   * The error a JVM prints when it runs out of memory, with what ran out ("Java heap space", "GC
   * overhead limit exceeded", "Direct buffer memory"); not a stack frame that merely names it.
   */
  private static final Pattern OUT_OF_MEMORY =
      Pattern.compile("java\\.lang\\.OutOfMemoryError: ?(.*)");

  /**
   * Direct memory of every run's JVM. It defaults to {@code -Xmx}, and embedded Flink allocates its
   * network buffers there (a run with {@code -Xmx64m} failed at start-up for want of direct
   * memory); fixed apart from the heap, it leaves the heap the one limit the runs compare.
   */
  private static final String MAX_DIRECT_MEMORY = "256m";

  /** The garbage collector of every run's JVM. */
  public enum Collector {
    /** G1, the JVM's default on a machine with two or more cores. */
    G1("-XX:+UseG1GC"),
    /**
     * The parallel collector: with its GC overhead limit (on by default) a JVM that spends over 98%
     * of its time collecting and recovers under 2% of the heap fails with {@code OutOfMemoryError:
     * GC overhead limit exceeded}, where G1 lets a heap that its live state nearly fills crawl on.
     */
    PARALLEL("-XX:+UseParallelGC");

    private final String flag;

    Collector(String flag) {
      this.flag = flag;
    }
  }

  /** What the benchmark runs. */
  public record Plan(
      List<Workload> workloads,
      List<Variant> variants,
      List<Integer> pastWindows,
      int eventsPerWindow,
      int windows,
      double lateFraction,
      long storeDelayMillis,
      String maxHeap,
      Collector collector,
      long timeoutSeconds,
      Path scratch) {}

  /** How one run ended and what it measured. */
  public record Result(
      Workload workload, Variant variant, int pastWindows, String outcome, JsonNode measures) {
    boolean ok() {
      return outcome.equals("ok");
    }

    double get(String measure) {
      return ok() ? measures.path(measure).asDouble() : Double.NaN;
    }
  }

  private final Plan plan;
  private final PrintWriter progress;

  public TieringBenchmark(Plan plan, PrintWriter progress) {
    this.plan = plan;
    this.progress = progress;
  }

  /** Runs every combination, one JVM at a time. */
  public List<Result> run() throws IOException, InterruptedException {
    List<Result> results = new ArrayList<>();
    for (Workload workload : plan.workloads()) {
      for (int past : plan.pastWindows()) {
        for (Variant variant : plan.variants()) {
          Result r = runOne(workload, variant, past);
          progress.printf(
              Locale.ROOT,
              "%s, %d past windows, %s: %s%n",
              workload.cliName(),
              past,
              variant.cliName(),
              r.ok() ? r.measures().toString() : r.outcome());
          progress.flush();
          results.add(r);
        }
      }
    }
    return results;
  }

  /** How often a line on the progress stream says that a run is still going. */
  private static final long PROGRESS_SECONDS = 15;

  /**
   * Waits for a run's JVM, with a progress line every {@value #PROGRESS_SECONDS} s; false if it is
   * still running at the timeout.
   */
  private boolean awaitWithProgress(Process process, Workload workload, Variant variant, int past)
      throws InterruptedException {
    long started = System.nanoTime();
    while (true) {
      long elapsed = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started);
      long left = plan.timeoutSeconds() - elapsed;
      if (left <= 0) {
        return !process.isAlive();
      }
      if (process.waitFor(Math.min(left, PROGRESS_SECONDS), TimeUnit.SECONDS)) {
        return true;
      }
      progress.printf(
          Locale.ROOT,
          "%s, %d past windows, %s: running for %d s (timeout %d s)%n",
          workload.cliName(),
          past,
          variant.cliName(),
          TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started),
          plan.timeoutSeconds());
      progress.flush();
    }
  }

  private Result runOne(Workload workload, Variant variant, int past)
      throws IOException, InterruptedException {
    Path scratch =
        Files.createDirectories(
            plan.scratch().resolve(workload.cliName() + "-" + variant.cliName() + "-" + past));
    TieringRun.Settings settings =
        new TieringRun.Settings(
            workload,
            variant,
            past,
            plan.eventsPerWindow(),
            plan.windows(),
            plan.lateFraction(),
            plan.storeDelayMillis(),
            scratch);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx" + plan.maxHeap());
    command.add("-Xms" + plan.maxHeap());
    command.add(plan.collector().flag);
    command.add("-XX:MaxDirectMemorySize=" + MAX_DIRECT_MEMORY);
    command.add("-XX:+ExitOnOutOfMemoryError");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(TieringRun.class.getName());
    command.addAll(settings.toArgs());
    Path log = scratch.resolve("run.log");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!awaitWithProgress(process, workload, variant, past)) {
      process.destroyForcibly().waitFor();
      String status =
          Files.readAllLines(log, StandardCharsets.UTF_8).stream()
              .map(RunStatus::describe)
              .flatMap(Optional::stream)
              .reduce((first, second) -> second)
              .map(last -> " (" + last + ")")
              .orElse("");
      return new Result(
          workload, variant, past, "timeout after " + plan.timeoutSeconds() + " s" + status, null);
    }
    List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
    Optional<String> line = lines.stream().filter(l -> l.startsWith("RESULT ")).findFirst();
    Optional<String> outOfMemory = outOfMemory(lines);
    if (process.exitValue() == OUT_OF_MEMORY_EXIT || outOfMemory.isPresent()) {
      return new Result(
          workload,
          variant,
          past,
          "out of memory" + outOfMemory.map(what -> " (" + what + ")").orElse(""),
          null);
    }
    if (process.exitValue() != 0 || line.isEmpty()) {
      String last = lines.isEmpty() ? "" : lines.get(lines.size() - 1);
      return new Result(
          workload,
          variant,
          past,
          "failed (exit " + process.exitValue() + ", see " + log + "): " + last,
          null);
    }
    return new Result(
        workload,
        variant,
        past,
        "ok",
        new ObjectMapper().readTree(line.get().substring("RESULT ".length())));
  }

  /** What ran out, if a run's output says that its JVM ran out of memory. */
  static Optional<String> outOfMemory(List<String> lines) {
    return lines.stream()
        .map(OUT_OF_MEMORY::matcher)
        .filter(Matcher::find)
        .map(m -> m.group(1).trim())
        .findFirst();
  }

  /**
   * Prints one row per run: heap after GC, the share of the run's time in garbage collection,
   * events/s and their ratio to native Flink (heap), ingestion rate, latency of late results, and
   * for TieredWindow the mean milliseconds a late firing waited on block reads and the pre-stage
   * hits and misses.
   */
  public static void printTable(List<Result> results, PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "%-8s %5s %-21s %9s %9s %5s %10s %7s %9s %10s %10s %9s %s%n",
        "workload",
        "past",
        "variant",
        "heap p50",
        "heap max",
        "gc",
        "events/s",
        "vs heap",
        "ingest/s",
        "late p50",
        "late p99",
        "late I/O",
        "pre-stage hits/misses");
    for (Result r : results) {
      if (!r.ok()) {
        out.printf(
            Locale.ROOT,
            "%-8s %5d %-21s %s%n",
            r.workload().cliName(),
            r.pastWindows(),
            r.variant().cliName(),
            r.outcome());
        continue;
      }
      double baseline =
          results.stream()
              .filter(
                  b ->
                      b.workload() == r.workload()
                          && b.pastWindows() == r.pastWindows()
                          && b.variant() == Variant.NATIVE_FLINK_HEAP)
              .mapToDouble(b -> b.get("eventsPerSecond"))
              .findFirst()
              .orElse(Double.NaN);
      out.printf(
          Locale.ROOT,
          "%-8s %5d %-21s %7.1fMB %7.1fMB %4.0f%% %10.0f %7s %9.0f %8.0fms %8.0fms %9s %s%n",
          r.workload().cliName(),
          r.pastWindows(),
          r.variant().cliName(),
          r.get("heapAfterGcMedianBytes") / 1e6,
          r.get("heapAfterGcPeakBytes") / 1e6,
          100 * r.get("gcSeconds") / r.get("seconds"),
          r.get("eventsPerSecond"),
          Double.isNaN(baseline)
              ? "-"
              : String.format(Locale.ROOT, "%.2fx", r.get("eventsPerSecond") / baseline),
          r.get("ingestEventsPerSecond"),
          r.get("lateLatencyP50Millis"),
          r.get("lateLatencyP99Millis"),
          r.variant().tiered()
              ? String.format(Locale.ROOT, "%.1fms", r.get("lateFiringIoWaitMeanMillis"))
              : "-",
          r.variant().tiered()
              ? (long) r.get("prestageHits") + "/" + (long) r.get("prestageMisses")
              : "-");
    }
    out.flush();
  }

  /** Writes heap-vs-past-windows and throughput-vs-past-windows charts, one pair per workload. */
  public static List<Path> writeCharts(List<Result> results, Path directory) throws IOException {
    List<Path> written = new ArrayList<>();
    for (Workload workload : Workload.values()) {
      List<Result> mine = results.stream().filter(r -> r.workload() == workload).toList();
      if (mine.isEmpty()) {
        continue;
      }
      Path heap = directory.resolve("tiering-" + workload.cliName() + "-heap.png");
      Charts.lines(
          heap,
          "Aion "
              + workload.cliName()
              + ": peak heap after GC (runs that did not finish"
              + " are missing)",
          "allowed lateness (past windows)",
          "MB",
          series(mine, r -> r.get("heapAfterGcPeakBytes") / 1e6));
      Path throughput = directory.resolve("tiering-" + workload.cliName() + "-throughput.png");
      Charts.lines(
          throughput,
          "Aion " + workload.cliName() + ": throughput",
          "allowed lateness (past windows)",
          "events/s",
          series(mine, r -> r.get("eventsPerSecond")));
      written.add(heap);
      written.add(throughput);
    }
    return written;
  }

  private static XYSeriesCollection series(List<Result> results, ToDoubleFunction<Result> value) {
    XYSeriesCollection data = new XYSeriesCollection();
    for (Variant variant : Variant.values()) {
      XYSeries series = new XYSeries(variant.cliName());
      for (Result r : results) {
        if (r.variant() == variant && r.ok()) {
          series.add(r.pastWindows(), value.applyAsDouble(r));
        }
      }
      if (!series.isEmpty()) {
        data.addSeries(series);
      }
    }
    return data;
  }
}
