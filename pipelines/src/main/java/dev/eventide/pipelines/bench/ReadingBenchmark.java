package dev.eventide.pipelines.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.eventide.trends.Event;
import dev.eventide.trends.io.EventJson;
import dev.eventide.trends.io.TextLines;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * How fast event lines are read ({@code eventide bench trends --reading}): a stream's events as
 * JSON lines in memory, read by {@link TextLines} alone (split and UTF-8 decoded), then parsed into
 * events by {@link EventJson} (its fast path for the common form, the full parser otherwise), and,
 * as the generic alternative, by Jackson's tree model (a {@code JsonNode} per line, its fields
 * visited).
 */
public final class ReadingBenchmark {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private ReadingBenchmark() {}

  /** What is measured. */
  public enum Reader {
    LINES,
    EVENT_JSON,
    JACKSON_TREE
  }

  /** One reader's fastest round. */
  public record Result(Reader reader, long lines, double seconds) {
    public double linesPerSecond() {
      return lines / seconds;
    }
  }

  /** The events as the JSON lines {@code eventide trends} reads. */
  public static byte[] lines(List<Event> events) {
    StringBuilder text = new StringBuilder();
    for (Event e : events) {
      text.append("{\"type\":\"").append(e.type()).append("\",\"time\":").append(e.time());
      e.attributes()
          .forEach(
              (name, value) -> {
                text.append(",\"").append(name).append("\":");
                if (value instanceof String s) {
                  text.append('"').append(s).append('"');
                } else {
                  text.append(((java.math.BigDecimal) value).toPlainString());
                }
              });
      text.append("}\n");
    }
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Reads the lines with every reader once to warm up, then {@code rounds} rounds of every reader
   * in turn (so that the machine's drift affects them alike), and returns each one's fastest round.
   */
  public static List<Result> measure(byte[] lines, int rounds) {
    Reader[] readers = Reader.values();
    Result[] best = new Result[readers.length];
    for (int round = -1; round < rounds; round++) {
      for (int i = 0; i < readers.length; i++) {
        long started = System.nanoTime();
        long count = read(readers[i], lines);
        double seconds = (System.nanoTime() - started) / 1e9;
        if (round >= 0 && (best[i] == null || seconds < best[i].seconds())) {
          best[i] = new Result(readers[i], count, seconds);
        }
      }
    }
    return List.of(best);
  }

  private static long read(Reader reader, byte[] lines) {
    long count = 0;
    long check = 0;
    try (TextLines in = TextLines.open(new ByteArrayInputStream(lines))) {
      for (TextLines.Line line = in.next(); line != null; line = in.next()) {
        count++;
        switch (reader) {
          case LINES -> check += line.text().length();
          case EVENT_JSON -> check += EventJson.parse(line.text(), line.number()).time();
          case JACKSON_TREE -> {
            JsonNode node = MAPPER.readTree(line.text());
            check += node.get("time").asLong() + node.size();
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (check == 42) {
      System.out.print(""); // keeps the reads from being optimized away
    }
    return count;
  }
}
