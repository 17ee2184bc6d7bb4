package dev.eventide.pipelines.trends;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.beam.sdk.transforms.DoFn;

/**
 * Writes the lines of each bundle to a file of their own in a directory, through a temporary file
 * and an atomic rename, so the client reads only complete files. A retried bundle writes its lines
 * again in another file: readers must tolerate repeated lines (results are keyed, and the client
 * keeps one per key). The directory must be visible to every worker and to the client (the
 * DirectRunner, embedded Flink, or a cluster on this machine).
 */
final class LineFileSink extends DoFn<String, Void> {
  private final String directory;
  private transient List<String> lines;

  LineFileSink(String directory) {
    this.directory = directory;
  }

  @StartBundle
  public void start() {
    lines = new ArrayList<>();
  }

  @ProcessElement
  public void process(@Element String line) {
    lines.add(line);
  }

  @FinishBundle
  public void finish() {
    if (lines.isEmpty()) {
      return;
    }
    Path dir = Paths.get(directory);
    try {
      Files.createDirectories(dir);
      Path temp = Files.createTempFile(dir, ".part-", ".tmp");
      Files.write(temp, lines, StandardCharsets.UTF_8);
      Files.move(
          temp, dir.resolve("part-" + UUID.randomUUID() + ".txt"), StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write to " + dir + ": " + e.getMessage(), e);
    }
    lines = new ArrayList<>();
  }

  /** Every line written to the directory so far. */
  static List<String> read(Path dir) throws IOException {
    List<String> all = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return all;
    }
    try (var files = Files.list(dir)) {
      for (Path f : files.filter(f -> f.getFileName().toString().startsWith("part-")).toList()) {
        all.addAll(Files.readAllLines(f, StandardCharsets.UTF_8));
      }
    }
    return all;
  }
}
