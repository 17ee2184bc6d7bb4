package dev.eventide.trends.io;

import dev.eventide.trends.Event;
import dev.eventide.trends.TrendEngine;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.query.Workload;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Runs a workload over a JSON-lines event file and writes JSON-lines results: what {@code eventide
 * trends} does. Events may come in any order; they are evaluated in time order (stable for equal
 * times). A bad event line stops the job with its line number, or, given a dead-letter writer, is
 * written there with the reason and counted.
 */
public final class TrendJob {

  /** What a run did. */
  public record Summary(
      long events, long badEvents, long results, long millis, Map<String, Long> statistics) {}

  private TrendJob() {}

  /**
   * Runs the job.
   *
   * @param deadLetter where bad event lines go, or null to fail on the first
   * @throws BadEventException for the first bad line when there is no dead-letter writer
   */
  public static Summary run(
      Workload workload, Engines engine, BufferedReader events, Writer out, Writer deadLetter) {
    EventSchema schema = EventSchema.of(workload);
    List<Event> parsed = new ArrayList<>();
    long bad = 0;
    try {
      long lineNumber = 0;
      for (String line = events.readLine(); line != null; line = events.readLine()) {
        lineNumber++;
        if (line.isBlank()) {
          continue;
        }
        try {
          Event e = EventJson.parse(line, lineNumber);
          String problem = schema.problemWith(e);
          if (problem != null) {
            throw new BadEventException(lineNumber, problem);
          }
          parsed.add(e);
        } catch (BadEventException e) {
          if (deadLetter == null) {
            throw e;
          }
          bad++;
          deadLetter.write(DeadLetter.format(e, line));
          deadLetter.write('\n');
        }
      }
      parsed.sort(Comparator.comparingLong(Event::time));
      long started = System.nanoTime();
      long[] results = {0};
      TrendEngine trends =
          engine.create(
              workload,
              r -> {
                try {
                  out.write(ResultJson.format(r));
                  out.write('\n');
                  results[0]++;
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
      parsed.forEach(trends::process);
      trends.finish();
      long millis = (System.nanoTime() - started) / 1_000_000;
      out.flush();
      if (deadLetter != null) {
        deadLetter.flush();
      }
      return new Summary(parsed.size(), bad, results[0], millis, trends.statistics());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A dead-letter line: the line number, the reason and the original line. */
  static final class DeadLetter {
    private static final com.fasterxml.jackson.databind.ObjectMapper MAPPER =
        new com.fasterxml.jackson.databind.ObjectMapper();

    private DeadLetter() {}

    static String format(BadEventException e, String line) {
      return MAPPER
          .createObjectNode()
          .put("line", e.line())
          .put("reason", e.reason())
          .put("event", line)
          .toString();
    }
  }
}
