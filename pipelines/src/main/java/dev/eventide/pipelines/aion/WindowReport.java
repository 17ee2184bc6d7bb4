package dev.eventide.pipelines.aion;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.joda.time.Instant;

/**
 * The per-window summary of an {@link AionPipeline} run, read back from the pane files it wrote.
 *
 * @param windows one result per window, by window start
 */
public record WindowReport(List<WindowResult> windows) {
  /** Name of the summary file {@link #write} creates in the output directory. */
  public static final String SUMMARY_FILE = "summary.jsonl";

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One window: its final count, sum and result (from the latest pane), what the on-time pane saw,
   * how many panes there were, and whether a pane said it was the last (Beam's windowing fires one
   * when the window expires; {@link dev.eventide.tiering.TieredWindow} only when late values are
   * still pending then). Only the final values are the same on every runner and windowing: how many
   * events make the on-time pane, and how late events batch into late panes, depend on both.
   */
  public record WindowResult(
      long windowStart,
      long windowEnd,
      long onTimeCount,
      int panes,
      boolean complete,
      long count,
      long sum,
      String result) {}

  /** Reads every pane file under {@code outputDirectory}. */
  public static WindowReport read(Path outputDirectory) {
    Map<Long, List<PaneSummary>> byWindow = new TreeMap<>();
    for (PaneSummary pane : readPanes(outputDirectory)) {
      byWindow.computeIfAbsent(pane.windowStart(), k -> new ArrayList<>()).add(pane);
    }
    List<WindowResult> windows = new ArrayList<>();
    for (List<PaneSummary> panes : byWindow.values()) {
      // Panes accumulate, so the final result is the pane with the most events. Not simply the
      // highest index: Flink can emit a second, empty pane with one index at the end of the input
      // (see PaneFileSink), and a job restored from a checkpoint fires again the panes that came
      // after it, batched differently, so a stale pane of a higher index can remain.
      PaneSummary latest = panes.get(0);
      long onTime = 0;
      boolean sawFinalPane = false;
      for (PaneSummary pane : panes) {
        if (pane.count() > latest.count()
            || (pane.count() == latest.count() && pane.paneIndex() > latest.paneIndex())) {
          latest = pane;
        }
        if (pane.timing().equals("ON_TIME")) {
          onTime = Math.max(onTime, pane.count());
        }
        sawFinalPane |= pane.last();
      }
      windows.add(
          new WindowResult(
              latest.windowStart(),
              latest.windowEnd(),
              onTime,
              panes.size(),
              sawFinalPane,
              latest.count(),
              latest.sum(),
              latest.result()));
    }
    return new WindowReport(List.copyOf(windows));
  }

  /** The number of pane files written so far: the progress of a running pipeline. */
  public static long countPanes(Path outputDirectory) {
    Path panes = outputDirectory.resolve(PaneFileSink.PANES);
    if (!Files.isDirectory(panes)) {
      return 0;
    }
    try (Stream<Path> files = Files.list(panes)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".json")).count();
    } catch (IOException e) {
      return 0;
    }
  }

  private static List<PaneSummary> readPanes(Path outputDirectory) {
    Path panes = outputDirectory.resolve(PaneFileSink.PANES);
    if (!Files.isDirectory(panes)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(panes)) {
      List<PaneSummary> out = new ArrayList<>();
      for (Path file : (Iterable<Path>) files.sorted()::iterator) {
        if (file.getFileName().toString().endsWith(".json")) {
          out.add(JSON.readValue(file.toFile(), PaneSummary.class));
        }
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read pane summaries in " + panes, e);
    }
  }

  /** Total events over the final panes of all windows. */
  public long events() {
    return windows.stream().mapToLong(WindowResult::count).sum();
  }

  /** Writes one JSON line per window to {@code outputDirectory/summary.jsonl}. */
  public Path write(Path outputDirectory) {
    Path file = outputDirectory.resolve(SUMMARY_FILE);
    StringBuilder lines = new StringBuilder();
    for (WindowResult w : windows) {
      Map<String, Object> row = new java.util.LinkedHashMap<>();
      row.put("window_start", w.windowStart());
      row.put("window_end", w.windowEnd());
      row.put("count", w.count());
      row.put("sum", w.sum());
      row.put("result", w.result());
      row.put("on_time_count", w.onTimeCount());
      row.put("panes", w.panes());
      row.put("complete", w.complete());
      try {
        lines.append(JSON.writeValueAsString(row)).append('\n');
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    try {
      Files.writeString(file, lines, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
    return file;
  }

  /**
   * Prints the summary as a table.
   *
   * @param resultName the header of the result column
   * @param finalPanes whether every window should have had a last pane (Beam's windowing)
   */
  public void print(PrintWriter out, String resultName, boolean finalPanes) {
    out.printf(
        Locale.ROOT,
        "%-24s %10s %10s %6s %10s%n",
        "window start (UTC)",
        "on time",
        "final",
        "panes",
        resultName);
    for (WindowResult w : windows) {
      out.printf(
          Locale.ROOT,
          "%-24s %10d %10d %6d %10s%s%n",
          new Instant(w.windowStart()),
          w.onTimeCount(),
          w.count(),
          w.panes(),
          w.result(),
          w.complete() || !finalPanes ? "" : "  (no final pane)");
    }
  }
}
