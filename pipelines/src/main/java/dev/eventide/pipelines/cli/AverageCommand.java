package dev.eventide.pipelines.cli;

import dev.eventide.pipelines.aion.AionWorkload;
import picocli.CommandLine.Command;

/** {@code eventide run average}: the Aion paper's average per tumbling window. */
@Command(
    name = "average",
    mixinStandardHelpOptions = true,
    versionProvider = EventideCli.Version.class,
    description = {
      "The Aion paper's average of random integers per tumbling window; an event arriving at time"
          + " a has event time a - k*window, k drawn from --lateness. Windows are Eventide's"
          + " TieredWindow (past windows spill to --store); --native runs Beam's own windowing"
          + " instead. Prints a per-window summary."
    },
    footer = {"", DurationConverter.HELP},
    sortOptions = false)
final class AverageCommand extends AionCommand {
  AverageCommand() {
    super(AionWorkload.AVERAGE);
  }
}
