package dev.eventide.pipelines.cli;

import dev.eventide.generators.LateEventGenerator;
import dev.eventide.pipelines.linearroad.LinearRoadPipeline;
import java.util.List;
import java.util.Locale;
import org.apache.beam.sdk.Pipeline;
import org.joda.time.Duration;
import picocli.CommandLine.Command;

/**
 * {@code eventide run linear-road}: a simplified Linear Road, its segments' statistics and tolls.
 */
@Command(
    name = "linear-road",
    mixinStandardHelpOptions = true,
    versionProvider = EventideCli.Version.class,
    description = {
      "A simplified Linear Road: vehicles' position reports; per segment and minute (--window,"
          + " default 1m) the vehicles, average speed and accidents (TieredWindow), joined per"
          + " segment (AggregateJoin) into Linear Road's toll."
    },
    footer = {"", DurationConverter.HELP},
    sortOptions = false)
final class LinearRoadCommand extends DataflowCommand {
  /** Vehicles of the linear-road workload. */
  static final int VEHICLES = 1_000;

  LinearRoadCommand() {
    super("linear-road", Duration.standardMinutes(1), 2_000);
  }

  @Override
  Built build(
      Pipeline pipeline,
      LateEventGenerator generator,
      String blockStore,
      Duration purgeDelay,
      String directory) {
    LateEventGenerator reports =
        generator.toBuilder()
            .setKeys(VEHICLES)
            .setMaxValue(LinearRoadPipeline.REPORT_VALUES)
            .build();
    LinearRoadPipeline.build(
        pipeline,
        LinearRoadPipeline.Settings.of(
            reports, stream.allowedLateness, blockStore, purgeDelay, directory));
    String namespace = LinearRoadPipeline.METRICS_NAMESPACE;
    return new Built(
        LinearRoadPipeline.OUTPUTS,
        namespace,
        List.of(namespace),
        String.format(
            Locale.ROOT,
            "%,d position reports of %,d vehicles on %d segments",
            stream.events,
            VEHICLES,
            LinearRoadPipeline.SEGMENTS));
  }
}
