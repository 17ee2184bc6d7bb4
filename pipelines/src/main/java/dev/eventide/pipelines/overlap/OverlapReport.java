package dev.eventide.pipelines.overlap;

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

/**
 * The outputs of an {@link OverlapPipeline} run side by side, per operator: the native transform's
 * and the Aggregate-built one's, compared as multisets of {@code (timestamp, value)}.
 *
 * @param operators one comparison per operator, in {@link OverlapPipeline#OPERATORS} order
 */
public record OverlapReport(List<Comparison> operators) {
  /**
   * One operator's two outputs, each sorted.
   *
   * @param operator its name
   * @param nativeLines the native transform's {@code "<timestamp> <value>"} lines
   * @param aggregateLines the Aggregate-built operator's
   */
  public record Comparison(String operator, List<String> nativeLines, List<String> aggregateLines) {
    public boolean agree() {
      return nativeLines.equals(aggregateLines);
    }

    /** Lines only one side has, with how many more times: {@code "+2 <line>"} is native's extra. */
    public List<String> differences() {
      Map<String, Integer> balance = new TreeMap<>();
      nativeLines.forEach(l -> balance.merge(l, 1, Integer::sum));
      aggregateLines.forEach(l -> balance.merge(l, -1, Integer::sum));
      List<String> out = new ArrayList<>();
      balance.forEach(
          (line, n) -> {
            if (n != 0) {
              out.add(
                  String.format(
                      Locale.ROOT,
                      "%s %d %s",
                      n > 0 ? "native +" : "aggregate +",
                      Math.abs(n),
                      line));
            }
          });
      return out;
    }
  }

  /** Reads the eight files a run wrote to {@code outputDirectory}. */
  public static OverlapReport read(Path outputDirectory) {
    List<Comparison> comparisons = new ArrayList<>();
    for (String operator : OverlapPipeline.OPERATORS) {
      comparisons.add(
          new Comparison(
              operator,
              lines(outputDirectory, operator + "-native"),
              lines(outputDirectory, operator + "-aggregate")));
    }
    return new OverlapReport(List.copyOf(comparisons));
  }

  /** A missing file is an operator that produced nothing. */
  private static List<String> lines(Path directory, String name) {
    Path file = directory.resolve(name + ".txt");
    if (!Files.exists(file)) {
      return List.of();
    }
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  public boolean allAgree() {
    return operators.stream().allMatch(Comparison::agree);
  }

  /**
   * Prints, per operator, the first {@code show} outputs of both side by side, the counts, and
   * whether they agree (with the lines that differ, at most {@code show} of them).
   */
  public void print(PrintWriter out, int show) {
    for (Comparison c : operators) {
      out.printf(
          Locale.ROOT,
          "%s: native %,d outputs, aggregate %,d: %s%n",
          c.operator(),
          c.nativeLines().size(),
          c.aggregateLines().size(),
          c.agree() ? "agree" : "DIFFER");
      int rows = Math.min(show, Math.max(c.nativeLines().size(), c.aggregateLines().size()));
      if (rows > 0) {
        int width =
            Math.max(
                "native".length(),
                c.nativeLines().stream().limit(rows).mapToInt(String::length).max().orElse(0));
        out.printf(Locale.ROOT, "  %-" + width + "s | %s%n", "native", "aggregate");
        for (int i = 0; i < rows; i++) {
          out.printf(
              Locale.ROOT,
              "  %-" + width + "s | %s%n",
              i < c.nativeLines().size() ? c.nativeLines().get(i) : "",
              i < c.aggregateLines().size() ? c.aggregateLines().get(i) : "");
        }
        int more = Math.max(c.nativeLines().size(), c.aggregateLines().size()) - rows;
        if (more > 0) {
          out.printf(Locale.ROOT, "  ... %,d more%n", more);
        }
      }
      if (!c.agree()) {
        c.differences().stream().limit(Math.max(show, 1)).forEach(d -> out.println("  " + d));
      }
    }
  }
}
