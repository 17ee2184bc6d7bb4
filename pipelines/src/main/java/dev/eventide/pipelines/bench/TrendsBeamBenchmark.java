package dev.eventide.pipelines.bench;

import dev.eventide.pipelines.trends.TrendPipeline;
import dev.eventide.trends.Event;
import dev.eventide.trends.Sharing;
import dev.eventide.trends.TrendEngine;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.io.ResultJson;
import dev.eventide.trends.query.Workload;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.runners.flink.FlinkRunner;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.joda.time.Duration;

/**
 * {@code TrendAggregate} on the DirectRunner and embedded Flink against the bare in-process core
 * (HAMLET, dynamic sharing) on one stream and workload, so the Beam adapter's cost is visible. Each
 * pipeline run is timed from submission to its end, start-up included; the same pipeline without
 * events measures the start-up and shut-down alone, so that the time beyond them can be set against
 * the core's. Everything runs twice and the faster run counts: the first compiles the code (on two
 * cores the JIT alone takes seconds of Beam's and Flink's code). The results of every run must
 * equal the core's.
 */
public final class TrendsBeamBenchmark {

  /**
   * Where a measurement ran: the core, or a runner with the workload fixed, or fixed but sent
   * through the machinery of changes sent while the job runs (a change log, a sequencer, a filter:
   * with no change, what that machinery costs).
   */
  public enum Target {
    CORE("core"),
    DIRECT("direct"),
    FLINK("flink"),
    DIRECT_STREAM("direct-changes-stream"),
    FLINK_STREAM("flink-changes-stream");

    private final String cliName;

    Target(String cliName) {
      this.cliName = cliName;
    }

    public String cliName() {
      return cliName;
    }

    boolean onFlink() {
      return this == FLINK || this == FLINK_STREAM;
    }

    TrendPipeline.ChangeDelivery delivery() {
      return this == DIRECT_STREAM || this == FLINK_STREAM
          ? TrendPipeline.ChangeDelivery.STREAM
          : TrendPipeline.ChangeDelivery.SCHEDULE;
    }

    public static Target ofCliName(String name) {
      for (Target t : values()) {
        if (t != CORE && t.cliName.equals(name)) {
          return t;
        }
      }
      throw new IllegalArgumentException(
          "unknown runner '"
              + name
              + "'; expected direct, flink, direct-changes-stream or flink-changes-stream");
    }
  }

  /**
   * One measurement; {@code startupSeconds} is the same pipeline's time without events (0 for the
   * core).
   */
  public record Result(
      TrendStreams.Kind stream,
      int eventsPerWindow,
      int queries,
      Target target,
      long events,
      double seconds,
      double startupSeconds,
      boolean sameResults) {

    public double eventsPerSecond() {
      return events / seconds;
    }

    /** The time beyond start-up and shut-down (NaN when start-up took longer than the run). */
    public double secondsBeyondStartup() {
      double beyond = seconds - startupSeconds;
      return beyond > 0 ? beyond : Double.NaN;
    }
  }

  private static final int ATTEMPTS = 2;

  /**
   * The core runs more often: a run of a million events is over before the JIT has compiled all of
   * it, and its fastest run is the one to set the runners against.
   */
  private static final int CORE_ATTEMPTS = 5;

  private TrendsBeamBenchmark() {}

  /** Measures the core, then each runner, on one setting. */
  public static List<Result> compare(
      TrendStreams.Kind stream,
      int eventsPerWindow,
      int queries,
      int windows,
      List<Target> runners,
      int flinkParallelism,
      TrendPipeline.Input input)
      throws IOException {
    long windowMillis = 60_000;
    Workload workload = Workload.parse(TrendStreams.workload(stream, 42, queries, windowMillis));
    List<Event> events = TrendStreams.events(stream, 42, eventsPerWindow, windows, windowMillis);
    List<Result> results = new ArrayList<>();
    List<String> expected = null;
    double coreSeconds = Double.MAX_VALUE;
    for (int attempt = 0; attempt < CORE_ATTEMPTS; attempt++) {
      long started = System.nanoTime();
      expected = core(workload, events);
      coreSeconds = Math.min(coreSeconds, (System.nanoTime() - started) / 1e9);
    }
    results.add(
        new Result(
            stream, eventsPerWindow, queries, Target.CORE, events.size(), coreSeconds, 0, true));
    for (Target runner : runners) {
      if (runner == Target.CORE) {
        continue;
      }
      double seconds = Double.MAX_VALUE;
      double startup = Double.MAX_VALUE;
      boolean same = true;
      for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        startup =
            Math.min(
                startup, run(workload, List.of(), runner, flinkParallelism, input).millis() / 1e3);
        TrendPipeline.Outcome outcome = run(workload, events, runner, flinkParallelism, input);
        seconds = Math.min(seconds, outcome.millis() / 1e3);
        same &= outcome.results().equals(expected);
      }
      results.add(
          new Result(
              stream, eventsPerWindow, queries, runner, events.size(), seconds, startup, same));
    }
    return results;
  }

  private static TrendPipeline.Outcome run(
      Workload workload,
      List<Event> events,
      Target runner,
      int flinkParallelism,
      TrendPipeline.Input input)
      throws IOException {
    Path work = Files.createTempDirectory("eventide-bench-trends-");
    try {
      return TrendPipeline.run(
          workload,
          List.of(),
          runner.delivery(),
          Sharing.DYNAMIC,
          Duration.ZERO,
          input,
          events,
          options(runner, flinkParallelism),
          work);
    } finally {
      TrendPipeline.deleteWork(work);
    }
  }

  private static List<String> core(Workload workload, List<Event> events) {
    List<String> lines = new ArrayList<>();
    TrendEngine engine = Engines.HAMLET.create(workload, r -> lines.add(ResultJson.format(r)));
    events.forEach(engine::process);
    engine.finish();
    Collections.sort(lines);
    return lines;
  }

  private static PipelineOptions options(Target runner, int parallelism) {
    if (!runner.onFlink()) {
      PipelineOptions options = PipelineOptionsFactory.create();
      options.setRunner(DirectRunner.class);
      return options;
    }
    FlinkPipelineOptions options = PipelineOptionsFactory.as(FlinkPipelineOptions.class);
    options.setRunner(FlinkRunner.class);
    options.setFlinkMaster("[local]");
    options.setStreaming(true);
    options.setParallelism(parallelism);
    // The input is bounded: once it is read there is nothing to wait for.
    options.setShutdownSourcesAfterIdleMs(0L);
    // Beam elements are immutable, so chained operators may pass them on without a copy.
    options.setObjectReuse(true);
    return options;
  }
}
