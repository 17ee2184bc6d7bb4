package dev.eventide.pipelines.cli;

import dev.eventide.pipelines.aion.AionWorkload;
import picocli.CommandLine.Command;

/** {@code eventide run bigrams}: the Aion paper's most frequent bigram per tumbling window. */
@Command(
    name = "bigrams",
    mixinStandardHelpOptions = true,
    versionProvider = EventideCli.Version.class,
    description = {
      "The Aion paper's most frequent bigram per tumbling window (a value names one of 200"
          + " words), over the stream of 'run average'. Windows are TieredWindow; --native runs"
          + " Beam's own windowing instead. Prints a per-window summary."
    },
    footer = {"", DurationConverter.HELP},
    sortOptions = false)
final class BigramsCommand extends AionCommand {
  BigramsCommand() {
    super(AionWorkload.BIGRAMS);
  }
}
