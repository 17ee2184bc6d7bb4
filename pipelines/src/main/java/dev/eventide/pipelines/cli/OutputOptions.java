package dev.eventide.pipelines.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.stream.Stream;
import picocli.CommandLine.Option;

/** {@code --output}: the new or empty directory a workload writes its files to. */
final class OutputOptions {
  @Option(
      names = "--output",
      paramLabel = "DIR",
      description =
          "Directory for the output files; must be new or empty (default:"
              + " eventide-output/WORKLOAD-TIME).")
  Path output;

  /** Checks {@code --output} without creating anything. */
  void check() {
    if (output != null && output.toString().isBlank()) {
      throw new EventideCli.UsageException("--output must name a directory, but was empty");
    }
  }

  /**
   * Creates the output directory (eventide-output/WORKLOAD-TIME unless given) and returns it.
   *
   * @throws EventideCli.UsageException if it is a file, not empty, or cannot be made or written
   */
  Path prepare(String workload) throws IOException {
    check();
    Path dir = output;
    if (dir == null) {
      String time = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
      dir = Paths.get("eventide-output", workload + "-" + time);
    }
    if (Files.exists(dir)) {
      if (!Files.isDirectory(dir)) {
        throw new EventideCli.UsageException("--output " + dir + " is a file, not a directory");
      }
      try (Stream<Path> entries = Files.list(dir)) {
        if (entries.findAny().isPresent()) {
          throw new EventideCli.UsageException(
              "--output " + dir + " is not empty; choose a new directory");
        }
      }
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new EventideCli.UsageException(
          "--output " + dir + ": cannot create it: " + CliFiles.reason(e));
    }
    if (!Files.isWritable(dir)) {
      throw new EventideCli.UsageException("--output " + dir + ": cannot write in it");
    }
    return dir;
  }
}
