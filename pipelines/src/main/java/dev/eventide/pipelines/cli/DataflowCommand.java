package dev.eventide.pipelines.cli;

import dev.eventide.generators.LateEventGenerator;
import dev.eventide.pipelines.output.OutputSummary;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptions;
import org.joda.time.Duration;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * A dataflow of {@code TieredWindow}s and joins over the generated stream (stock-market,
 * linear-road): its final results in files, a few lines of each printed.
 */
abstract class DataflowCommand extends WorkloadCommand {
  @Mixin ArrivalOptions arrival;

  @Mixin TieringOptions tiering;

  @Option(
      names = "--show",
      paramLabel = "N",
      defaultValue = "8",
      description = "Lines of each output printed (default: ${DEFAULT-VALUE}).")
  int show;

  /** What a run of the dataflow builds: its outputs, metrics and a description of its streams. */
  record Built(List<String> outputs, String namespace, List<String> setAside, String streams) {}

  private final String workload;
  private final Duration defaultWindow;
  private final int defaultEventsPerWindow;

  DataflowCommand(String workload, Duration defaultWindow, int defaultEventsPerWindow) {
    this.workload = workload;
    this.defaultWindow = defaultWindow;
    this.defaultEventsPerWindow = defaultEventsPerWindow;
  }

  @Override
  final String workload() {
    return workload;
  }

  /**
   * Builds the dataflow into the pipeline.
   *
   * @throws IllegalArgumentException if the flags make no dataflow (a usage error)
   */
  abstract Built build(
      Pipeline pipeline,
      LateEventGenerator generator,
      String blockStore,
      Duration purgeDelay,
      String directory);

  @Override
  int runWorkload() throws Exception {
    stream.resolve(defaultEvents(), defaultWindow);
    arrival.resolve(defaultEventsPerWindow, stream);
    tiering.check(false);
    if (show < 0) {
      throw new EventideCli.UsageException("--show must not be negative, but was " + show);
    }
    LateEventGenerator generator = arrival.generator(stream);
    PipelineOptions options = runner.create(workload());
    Path outputDirectory = output.prepare(workload());
    String blockStore = tiering.blockStore(outputDirectory, options);
    Pipeline pipeline = Pipeline.create(options);
    Built built;
    try {
      built =
          build(
              pipeline,
              generator,
              blockStore,
              tiering.purgeDelay(),
              outputDirectory.toAbsolutePath().toString());
    } catch (IllegalArgumentException e) {
      throw new EventideCli.UsageException(e.getMessage());
    }
    err()
        .printf(
            Locale.ROOT,
            "%s: %s, window %s, allowed lateness %s, lateness %s, TieredWindow (blocks in %s), on"
                + " %s; output in %s%n",
            workload(),
            built.streams(),
            DurationConverter.format(stream.window),
            DurationConverter.format(stream.allowedLateness),
            generator.lateness(),
            blockStore,
            options.getRunner().getSimpleName(),
            outputDirectory);
    err().flush();
    WorkloadRun.Timed<PipelineResult> run =
        WorkloadRun.pipeline(workload(), err(), pipeline, () -> "");
    OutputSummary.print(out(), outputDirectory, built.outputs(), show);
    out().flush();
    long beyond = 0;
    for (String gate : built.setAside()) {
      beyond += WorkloadRun.counter(run.result(), gate, "eventsBeyondAllowedLateness").orElse(0L);
    }
    err()
        .printf(
            Locale.ROOT,
            "%s: done in %.1f s: %,d final window results, %,d of them changed by late events;"
                + " %,d events beyond the allowed lateness (set aside); outputs in %s%n",
            workload(),
            run.seconds(),
            WorkloadRun.counter(run.result(), built.namespace(), "finalValues").orElse(0L),
            WorkloadRun.counter(run.result(), built.namespace(), "windowsChangedLate").orElse(0L),
            beyond,
            outputDirectory);
    return 0;
  }
}
