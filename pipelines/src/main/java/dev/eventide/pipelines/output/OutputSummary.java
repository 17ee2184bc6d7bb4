package dev.eventide.pipelines.output;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;

/** Prints the files a dataflow wrote with {@link SortedTextFile}: their sizes and first lines. */
public final class OutputSummary {
  private OutputSummary() {}

  /**
   * For each of {@code names}, a heading with the file and its line count, then its first {@code
   * show} lines.
   */
  public static void print(PrintWriter out, Path directory, List<String> names, int show) {
    for (String name : names) {
      List<String> lines = SortedTextFile.read(directory, name);
      out.printf("%s.txt: %,d lines%n", name, lines.size());
      lines.stream().limit(show).forEach(line -> out.println("  " + line));
      if (lines.size() > show && show > 0) {
        out.println("  ...");
      }
    }
  }
}
