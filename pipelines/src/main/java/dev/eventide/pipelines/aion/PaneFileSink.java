package dev.eventide.pipelines.aion;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import org.apache.beam.sdk.transforms.DoFn;

/**
 * Writes each pane summary to its own file, {@code
 * <dir>/panes/<windowStart>-<paneIndex>-<count>.json}, through a temporary file and an atomic
 * rename: a retried bundle rewrites the same file with the same content, and a reader never sees a
 * partial file. The count is part of the name because Flink can emit a second, empty pane with the
 * same index when the watermark jumps past a window's end and its expiry at once (at the end of the
 * input); that pane must not replace the real one. The directory must be visible to every worker
 * and to the client (always so for the DirectRunner and embedded Flink; on a cluster, a shared or
 * local-to-all file system).
 */
final class PaneFileSink extends DoFn<PaneSummary, Void> {
  static final String PANES = "panes";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String directory;

  PaneFileSink(String directory) {
    this.directory = directory;
  }

  @ProcessElement
  public void process(@Element PaneSummary pane) {
    Path panes = Paths.get(directory, PANES);
    Path target =
        panes.resolve(pane.windowStart() + "-" + pane.paneIndex() + "-" + pane.count() + ".json");
    try {
      Files.createDirectories(panes);
      Path temp = Files.createTempFile(panes, ".pane-", ".tmp");
      Files.writeString(temp, JSON.writeValueAsString(pane) + "\n", StandardCharsets.UTF_8);
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write pane summary " + target, e);
    }
  }
}
