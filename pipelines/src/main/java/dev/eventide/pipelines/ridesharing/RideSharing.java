package dev.eventide.pipelines.ridesharing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.eventide.pipelines.trends.TrendPipeline;
import dev.eventide.trends.Sharing;
import dev.eventide.trends.query.Workload;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.options.PipelineOptions;
import org.joda.time.Duration;

/**
 * The HAMLET paper's ride-sharing workload ({@code ridesharing.queries}: trips, slowing drivers,
 * completed and cancelled travel per district, four queries sharing {@code Travel+}) on {@code
 * TrendAggregate} over a generated {@link RideStream} with late events: what {@code eventide run
 * ridesharing} runs.
 */
public final class RideSharing {
  private static final ObjectMapper JSON = new ObjectMapper();

  private RideSharing() {}

  /** The workload, from the resource {@code ridesharing/ridesharing.queries}. */
  public static Workload workload() {
    try (InputStream in =
        RideSharing.class.getResourceAsStream("/ridesharing/ridesharing.queries")) {
      if (in == null) {
        throw new IllegalStateException("the resource ridesharing/ridesharing.queries is missing");
      }
      return Workload.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** What a run produced. */
  public record Report(TrendPipeline.Outcome outcome, Path results) {}

  /**
   * Runs the workload over the stream, writes {@code results.jsonl} (the last pane of each result)
   * and {@code dead-letters.jsonl} to {@code output}, and prints a table per window to {@code out}.
   */
  public static Report run(
      RideStream stream,
      Duration allowedLateness,
      PipelineOptions options,
      Path output,
      PrintWriter out)
      throws IOException {
    Workload workload = workload();
    Files.createDirectories(output);
    Path work = Files.createTempDirectory(output, ".work-");
    TrendPipeline.Outcome outcome;
    try {
      outcome =
          TrendPipeline.run(
              workload,
              Sharing.DYNAMIC,
              allowedLateness,
              Read.from(new RideSource(stream)),
              options,
              work);
    } finally {
      TrendPipeline.deleteWork(work);
    }
    Path results = output.resolve("results.jsonl");
    Files.write(results, outcome.results(), StandardCharsets.UTF_8);
    Files.write(
        output.resolve("dead-letters.jsonl"), outcome.deadLetters(), StandardCharsets.UTF_8);
    print(workload, outcome.results(), out);
    return new Report(outcome, results);
  }

  /** One line per window and district, one column per query. */
  static void print(Workload workload, List<String> results, PrintWriter out) {
    List<String> queries = new ArrayList<>();
    workload.queries().forEach(q -> queries.add(q.name()));
    Map<String, Map<String, String>> rows = new TreeMap<>();
    for (String line : results) {
      try {
        JsonNode r = JSON.readTree(line);
        String row =
            Instant.ofEpochMilli(r.get("window_start").asLong())
                + " "
                + String.format(Locale.ROOT, "%8s", r.get("group").path("district").asText());
        rows.computeIfAbsent(row, k -> new TreeMap<>())
            .put(r.get("query").asText(), r.get("value").isNull() ? "-" : r.get("value").asText());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    StringBuilder header =
        new StringBuilder(
            String.format(Locale.ROOT, "%-24s %8s", "window start (UTC)", "district"));
    queries.forEach(q -> header.append(String.format(Locale.ROOT, " %18s", q)));
    out.println(header);
    rows.forEach(
        (row, values) -> {
          StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-33s", row));
          for (String q : queries) {
            String v = values.getOrDefault(q, "-");
            if (v.contains(".")) {
              v = new BigDecimal(v).setScale(3, RoundingMode.HALF_EVEN).toPlainString();
            }
            line.append(String.format(Locale.ROOT, " %18s", v));
          }
          out.println(line);
        });
    out.flush();
  }
}
