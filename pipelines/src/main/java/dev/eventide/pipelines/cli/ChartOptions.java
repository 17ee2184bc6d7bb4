package dev.eventide.pipelines.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --chart-dir}: where a benchmark draws its PNG charts. */
final class ChartOptions {
  @Option(
      names = "--chart-dir",
      paramLabel = "DIR",
      defaultValue = "eventide-output/bench",
      description = "Where the PNG charts go (default: ${DEFAULT-VALUE}).")
  Path chartDir;

  /**
   * Checks that the charts can be written, before any measuring.
   *
   * @throws EventideCli.UsageException if the directory cannot be made or written
   */
  void check() {
    CliFiles.checkWritableDirectory("--chart-dir", chartDir);
  }

  /** The path of a chart. */
  Path chart(String file) {
    return chartDir.resolve(file);
  }
}
