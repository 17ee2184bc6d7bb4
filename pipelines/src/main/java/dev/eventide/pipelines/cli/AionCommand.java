package dev.eventide.pipelines.cli;

import dev.eventide.generators.LateEventGenerator;
import dev.eventide.pipelines.aion.AionPipeline;
import dev.eventide.pipelines.aion.AionWorkload;
import dev.eventide.pipelines.aion.WindowReport;
import java.nio.file.Path;
import java.util.Locale;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptions;
import org.joda.time.Duration;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The Aion paper's workloads, average and bigrams: one aggregate per tumbling window of the
 * generated stream, on {@code TieredWindow} or, with {@code --native}, on Beam's windowing.
 */
abstract class AionCommand extends WorkloadCommand {
  @Mixin ArrivalOptions arrival;

  @Mixin TieringOptions tiering;

  @Option(
      names = "--native",
      description =
          "Beam's own windowing (Window + GroupByKey, accumulating panes) instead of"
              + " TieredWindow.")
  boolean nativeWindowing;

  @Option(
      names = "--fault-drill-at",
      paramLabel = "N",
      description =
          "On a checkpointed Flink job: the stream stands still before event N, once a checkpoint"
              + " covering the events before it has completed, until the job restarts from a"
              + " checkpoint. Kill the TaskManager that runs it to watch the job recover; without"
              + " a failure it never ends.")
  Long faultDrillAt;

  private final AionWorkload aion;

  AionCommand(AionWorkload aion) {
    this.aion = aion;
  }

  @Override
  final String workload() {
    return aion.name().toLowerCase(Locale.ROOT);
  }

  @Override
  int runWorkload() throws Exception {
    stream.resolve(defaultEvents(), Duration.standardSeconds(10));
    arrival.resolve(10_000, stream);
    tiering.check(nativeWindowing);
    if (faultDrillAt != null && (faultDrillAt < 0 || faultDrillAt >= stream.events)) {
      throw new EventideCli.UsageException(
          "--fault-drill-at must be from 0 to --events - 1 ("
              + (stream.events - 1)
              + "), but was "
              + faultDrillAt);
    }
    LateEventGenerator generator = arrival.generator(stream);
    PipelineOptions options = runner.create(workload());
    if (faultDrillAt != null && !RunnerOptions.checkpointed(options)) {
      throw new EventideCli.UsageException(
          "--fault-drill-at needs a Flink job that checkpoints (checkpointingInterval in"
              + " --config): without a checkpoint to restart from, it would never end");
    }
    Path outputDirectory = output.prepare(workload());
    String blockStore = tiering.blockStore(outputDirectory, options);
    Pipeline pipeline = Pipeline.create(options);
    AionPipeline.Settings settings =
        AionPipeline.Settings.of(
            aion,
            generator,
            stream.allowedLateness,
            nativeWindowing,
            blockStore,
            tiering.purgeDelay(),
            outputDirectory.toAbsolutePath().toString());
    if (faultDrillAt != null) {
      settings = settings.withFaultDrillAt(faultDrillAt);
    }
    AionPipeline.build(pipeline, settings);

    err()
        .printf(
            Locale.ROOT,
            "%s: %,d events, window %s, allowed lateness %s, lateness %s, %s, on %s; output in"
                + " %s%n",
            workload(),
            stream.events,
            DurationConverter.format(stream.window),
            DurationConverter.format(stream.allowedLateness),
            generator.lateness(),
            nativeWindowing ? "Beam's windowing" : "TieredWindow (blocks in " + blockStore + ")",
            options.getRunner().getSimpleName(),
            outputDirectory);
    err().flush();
    WorkloadRun.Timed<PipelineResult> run =
        WorkloadRun.pipeline(
            workload(),
            err(),
            pipeline,
            () -> ", " + WindowReport.countPanes(outputDirectory) + " panes written");

    WindowReport report = WindowReport.read(outputDirectory);
    report.print(out(), aion.resultName(), nativeWindowing);
    Path summary = report.write(outputDirectory);
    out().flush();
    err()
        .printf(
            Locale.ROOT,
            "%s: done in %.1f s (%,.0f events/s): %d windows, %,d events aggregated, %s beyond"
                + " the allowed lateness (set aside); summary in %s%n",
            workload(),
            run.seconds(),
            stream.events / run.seconds(),
            report.windows().size(),
            report.events(),
            WorkloadRun.counter(
                    run.result(), AionPipeline.METRICS_NAMESPACE, "eventsBeyondAllowedLateness")
                .map(n -> String.format("%,d", n))
                .orElse("?"),
            summary);
    return 0;
  }
}
