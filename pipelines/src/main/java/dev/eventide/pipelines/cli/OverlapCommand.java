package dev.eventide.pipelines.cli;

import dev.eventide.generators.LateEventGenerator;
import dev.eventide.pipelines.overlap.OverlapPipeline;
import dev.eventide.pipelines.overlap.OverlapReport;
import java.nio.file.Path;
import java.util.Locale;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptions;
import org.joda.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code eventide run overlap}: the semantic-overlap paper's native and Aggregate-built operators
 * on one stream, side by side.
 */
@Command(
    name = "overlap",
    mixinStandardHelpOptions = true,
    versionProvider = EventideCli.Version.class,
    description = {
      "The semantic-overlap paper: one small stream through Beam's native Filter, Map, FlatMap"
          + " and windowed join and through the Aggregate-built ones; prints both outputs side by"
          + " side and whether they agree (exit code 1 if not)."
    },
    footer = {"", DurationConverter.HELP},
    sortOptions = false)
final class OverlapCommand extends WorkloadCommand {
  @Mixin ArrivalOptions arrival;

  @Option(
      names = "--show",
      paramLabel = "N",
      defaultValue = "8",
      description = "Outputs of each operator printed side by side (default: ${DEFAULT-VALUE}).")
  int show;

  @Override
  String workload() {
    return "overlap";
  }

  @Override
  int runWorkload() throws Exception {
    stream.resolve(500, Duration.standardSeconds(10));
    arrival.resolve(50, stream);
    if (show < 0) {
      throw new EventideCli.UsageException("--show must not be negative, but was " + show);
    }
    LateEventGenerator generator = arrival.generator(stream);
    PipelineOptions options = runner.create(workload());
    Path outputDirectory = output.prepare(workload());
    Pipeline pipeline = Pipeline.create(options);
    OverlapPipeline.build(
        pipeline, generator, stream.allowedLateness, outputDirectory.toAbsolutePath().toString());
    err()
        .printf(
            Locale.ROOT,
            "overlap: %,d events, join window %s, allowed lateness %s, lateness %s, on %s; output"
                + " in %s%n",
            stream.events,
            DurationConverter.format(stream.window),
            DurationConverter.format(stream.allowedLateness),
            generator.lateness(),
            options.getRunner().getSimpleName(),
            outputDirectory);
    err().flush();
    WorkloadRun.Timed<PipelineResult> run =
        WorkloadRun.pipeline(workload(), err(), pipeline, () -> "");
    OverlapReport report = OverlapReport.read(outputDirectory);
    report.print(out(), show);
    out().flush();
    err()
        .printf(
            Locale.ROOT,
            "overlap: done in %.1f s: %s; %s of %,d events beyond the allowed lateness (set aside"
                + " before both); outputs in %s%n",
            run.seconds(),
            report.allAgree() ? "native and Aggregate-built operators agree" : "they DIFFER",
            WorkloadRun.counter(
                    run.result(), OverlapPipeline.METRICS_NAMESPACE, "eventsBeyondAllowedLateness")
                .map(n -> String.format(Locale.ROOT, "%,d", n))
                .orElse("?"),
            stream.events,
            outputDirectory);
    return report.allAgree() ? 0 : 1;
  }
}
