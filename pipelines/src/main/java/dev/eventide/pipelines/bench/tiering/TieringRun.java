package dev.eventide.pipelines.bench.tiering;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LateEventGenerator;
import dev.eventide.generators.LateEventSource;
import dev.eventide.generators.LatenessDistribution;
import dev.eventide.tiering.TieredWindow;
import dev.eventide.tiering.TieringMetrics;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.runners.flink.FlinkRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.AfterProcessingTime;
import org.apache.beam.sdk.transforms.windowing.AfterWatermark;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;

/**
 * One run of the tiering benchmark, in a JVM of its own (started by {@link TieringBenchmark}): the
 * workload on the variant with the given allowed lateness, measuring the heap after every garbage
 * collection (heap pools only), the rates, and how long late events took to show up in a result.
 * Prints one line, {@code RESULT <json>}, on standard output, and while it runs a {@code STATUS}
 * line every {@value #STATUS_SECONDS} s (see {@link RunStatus}), so that a run that does not end
 * still says whether it was collecting garbage. A run that fails exits with status 1.
 */
public final class TieringRun {
  /** The window of the stream (event time); at most one event per millisecond of it. */
  static final Duration WINDOW = Duration.standardMinutes(1);

  /** How often Beam's native windowing re-fires a window while late events arrive. */
  static final Duration NATIVE_LATE_FIRING_DELAY = Duration.millis(200);

  private static final AtomicLong FIRST_ARRIVAL = new AtomicLong(Long.MAX_VALUE);
  private static final AtomicLong LAST_ARRIVAL = new AtomicLong(Long.MIN_VALUE);
  private static final AtomicLong EVENTS_READ = new AtomicLong();
  private static final List<Long> LATE_LATENCIES_MICROS =
      Collections.synchronizedList(new ArrayList<>());
  private static final List<Long> HEAP_AFTER_GC = Collections.synchronizedList(new ArrayList<>());

  /** How often a run prints a {@code STATUS} line (its recent garbage-collection share). */
  static final long STATUS_SECONDS = 15;

  /** The settings of a run, as the parent passes them. */
  public record Settings(
      Workload workload,
      Variant variant,
      int pastWindows,
      int eventsPerWindow,
      int windows,
      double lateFraction,
      long storeDelayMillis,
      Path scratch) {

    /** The block store of a tiered run: a local directory, behind a delay if one is asked for. */
    String store() {
      String local = scratch.resolve("blocks").toUri().toString();
      return storeDelayMillis > 0 ? "delayed:" + storeDelayMillis + ":" + local : local;
    }

    List<String> toArgs() {
      return List.of(
          workload.cliName(),
          variant.cliName(),
          Integer.toString(pastWindows),
          Integer.toString(eventsPerWindow),
          Integer.toString(windows),
          Double.toString(lateFraction),
          Long.toString(storeDelayMillis),
          scratch.toString());
    }

    static Settings fromArgs(String[] args) {
      return new Settings(
          Workload.valueOf(args[0].toUpperCase(java.util.Locale.ROOT)),
          Variant.fromCliName(args[1]),
          Integer.parseInt(args[2]),
          Integer.parseInt(args[3]),
          Integer.parseInt(args[4]),
          Double.parseDouble(args[5]),
          Long.parseLong(args[6]),
          Path.of(args[7]));
    }

    LateEventGenerator events() {
      // Log-normal(1, 1) windows of lateness: a median of 2.7 windows, 4% later than 16.
      return LateEventGenerator.builder()
          .setWindow(WINDOW)
          .setEventsPerWindow(eventsPerWindow)
          .setEvents((long) eventsPerWindow * windows)
          .setLateFraction(lateFraction)
          .setLateness(LatenessDistribution.logNormal(1, 1))
          .setKeys(1)
          .setSeed(17)
          .build();
    }
  }

  private TieringRun() {}

  public static void main(String[] args) {
    try {
      run(Settings.fromArgs(args));
    } catch (Throwable t) {
      // Embedded Flink leaves non-daemon threads behind: without an exit a failed run would hang
      // until the parent's timeout.
      t.printStackTrace();
      System.exit(1);
    }
  }

  private static void run(Settings settings) throws Exception {
    watchGarbageCollections();
    RunStatus.start(
        STATUS_SECONDS, EVENTS_READ::get, (long) settings.eventsPerWindow() * settings.windows());
    Pipeline p = Pipeline.create(options(settings));
    build(p, settings);
    long start = System.nanoTime();
    PipelineResult result = p.run();
    result.waitUntilFinish();
    double seconds = (System.nanoTime() - start) / 1e9;

    long events = (long) settings.eventsPerWindow() * settings.windows();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("seconds", seconds);
    out.put("eventsPerSecond", events / seconds);
    double ingestSeconds = (LAST_ARRIVAL.get() - FIRST_ARRIVAL.get()) / 1e9;
    out.put("ingestEventsPerSecond", ingestSeconds > 0 ? events / ingestSeconds : 0);
    List<Long> heap;
    synchronized (HEAP_AFTER_GC) {
      heap = new ArrayList<>(HEAP_AFTER_GC);
    }
    Collections.sort(heap);
    out.put("garbageCollections", heap.size());
    out.put("gcSeconds", RunStatus.collectionMillis() / 1000.0);
    out.put("heapAfterGcMedianBytes", heap.isEmpty() ? 0 : heap.get(heap.size() / 2));
    out.put("heapAfterGcPeakBytes", heap.isEmpty() ? 0 : heap.get(heap.size() - 1));
    List<Long> latencies;
    synchronized (LATE_LATENCIES_MICROS) {
      latencies = new ArrayList<>(LATE_LATENCIES_MICROS);
    }
    Collections.sort(latencies);
    out.put("lateResults", latencies.size());
    out.put("lateLatencyP50Millis", percentile(latencies, 0.50) / 1000.0);
    out.put("lateLatencyP99Millis", percentile(latencies, 0.99) / 1000.0);
    for (String metric :
        List.of(
            "bytesDestaged",
            "bytesStaged",
            "prestageHits",
            "prestageMisses",
            "firingIoWaitMillis",
            "onTimePanes",
            "latePanes")) {
      out.put(metric, TieringMetrics.counter(result, metric));
    }
    out.put("lateFiringIoWaitMeanMillis", TieringMetrics.mean(result, "lateFiringIoWaitMillis"));
    System.out.println("RESULT " + new ObjectMapper().writeValueAsString(out));
    System.exit(0); // embedded Flink leaves non-daemon threads behind
  }

  private static long percentile(List<Long> sorted, double q) {
    if (sorted.isEmpty()) {
      return 0;
    }
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.floor(q * sorted.size())));
  }

  private static PipelineOptions options(Settings settings) {
    if (!settings.variant().flink()) {
      PipelineOptions options = PipelineOptionsFactory.create();
      options.setRunner(DirectRunner.class);
      return options;
    }
    FlinkPipelineOptions options = PipelineOptionsFactory.as(FlinkPipelineOptions.class);
    options.setRunner(FlinkRunner.class);
    options.setFlinkMaster("[local]");
    options.setStreaming(true);
    options.setParallelism(1);
    options.setShutdownSourcesAfterIdleMs(0L);
    if (settings.variant() == Variant.NATIVE_FLINK_ROCKSDB) {
      options.setStateBackend("rocksdb");
      options.setStateBackendStoragePath(
          settings.scratch().resolve("flink-state").toUri().toString());
    }
    return options;
  }

  static void build(Pipeline p, Settings settings) {
    PCollection<KV<Integer, Reading>> readings =
        p.apply("Read", LateEventSource.read(settings.events()))
            .apply("Stamp", ParDo.of(new Stamp()))
            .setCoder(KvCoder.of(VarIntCoder.of(), Reading.coder()));
    Duration lateness = WINDOW.multipliedBy(settings.pastWindows());
    FixedWindows windows = FixedWindows.of(WINDOW);
    PCollection<KV<Integer, WindowResult>> results;
    if (settings.variant().tiered()) {
      results =
          readings.apply(
              "TieredWindow",
              TieredWindow.of(windows, settings.workload().function())
                  .withAllowedLateness(lateness)
                  .withStore(settings.store())
                  .withPrestaging(settings.variant() != Variant.TIERED_NO_PRESTAGE)
                  .withPrestagingAhead(settings.variant() == Variant.TIERED_PRESTAGE_AHEAD)
                  .withOutputCoder(WindowResult.coder()));
    } else {
      results =
          readings
              .apply(
                  "Window",
                  Window.<KV<Integer, Reading>>into(windows)
                      .triggering(
                          AfterWatermark.pastEndOfWindow()
                              .withLateFirings(
                                  AfterProcessingTime.pastFirstElementInPane()
                                      .plusDelayOf(NATIVE_LATE_FIRING_DELAY)))
                      .withAllowedLateness(lateness)
                      .accumulatingFiredPanes())
              .apply("Group", GroupByKey.create())
              .apply("Apply", ParDo.of(new ApplyFunction(settings.workload())))
              .setCoder(KvCoder.of(VarIntCoder.of(), WindowResult.coder()));
    }
    results.apply("Probe", ParDo.of(new Probe()));
  }

  /** Gives each event its arrival time in this JVM. */
  private static final class Stamp extends DoFn<LateEvent, KV<Integer, Reading>> {
    @ProcessElement
    public void process(@Element LateEvent e, OutputReceiver<KV<Integer, Reading>> out) {
      long now = System.nanoTime();
      FIRST_ARRIVAL.accumulateAndGet(now, Math::min);
      LAST_ARRIVAL.accumulateAndGet(now, Math::max);
      EVENTS_READ.incrementAndGet();
      out.output(KV.of(e.key(), new Reading(e.eventTime().getMillis(), e.value(), now)));
    }
  }

  /** The workload's window function on a native group. */
  private static final class ApplyFunction
      extends DoFn<KV<Integer, Iterable<Reading>>, KV<Integer, WindowResult>> {
    private final Workload workload;

    ApplyFunction(Workload workload) {
      this.workload = workload;
    }

    @ProcessElement
    public void process(
        @Element KV<Integer, Iterable<Reading>> group,
        BoundedWindow window,
        OutputReceiver<KV<Integer, WindowResult>> out) {
      out.output(
          KV.of(
              group.getKey(), workload.function().apply(group.getKey(), window, group.getValue())));
    }
  }

  /** Records how long the newest event of each late pane took to show up in it. */
  private static final class Probe extends DoFn<KV<Integer, WindowResult>, Void> {
    @ProcessElement
    public void process(@Element KV<Integer, WindowResult> result, PaneInfo pane) {
      if (pane.getTiming() == PaneInfo.Timing.LATE) {
        LATE_LATENCIES_MICROS.add(
            (System.nanoTime() - result.getValue().newestArrivalNanos()) / 1000);
      }
    }
  }

  /** Records the heap in use after every collection, from the JVM's GC notifications. */
  private static void watchGarbageCollections() {
    dev.eventide.pipelines.bench.HeapAfterGc.watch(HEAP_AFTER_GC::add);
  }
}
