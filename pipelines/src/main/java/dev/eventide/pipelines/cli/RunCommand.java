package dev.eventide.pipelines.cli;

import dev.eventide.pipelines.aion.AionWorkload;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code eventide run}: runs one of Eventide's workloads, each a subcommand with its own flags; on
 * its own, the average workload.
 */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    versionProvider = EventideCli.Version.class,
    description = {
      "Runs a workload over a generated stream with late events and prints a summary on stdout,"
          + " with progress on stderr. Without a WORKLOAD, runs average with the options below;"
          + " 'run WORKLOAD --help' shows a workload's own options."
    },
    footer = {"", DurationConverter.HELP},
    sortOptions = false,
    subcommands = {
      AverageCommand.class,
      BigramsCommand.class,
      OverlapCommand.class,
      StockMarketCommand.class,
      LinearRoadCommand.class,
      RideSharingCommand.class
    })
final class RunCommand extends AionCommand {
  // A word that names no workload would otherwise be "unmatched": this says what the words are.
  @Parameters(arity = "0..1", hidden = true)
  String unknownWorkload;

  RunCommand() {
    super(AionWorkload.AVERAGE);
  }

  @Override
  int runWorkload() throws Exception {
    if (unknownWorkload != null) {
      throw new EventideCli.UsageException(
          "unknown workload '"
              + unknownWorkload
              + "'; expected one of "
              + String.join(", ", List.copyOf(spec.subcommands().keySet())));
    }
    return super.runWorkload();
  }
}
