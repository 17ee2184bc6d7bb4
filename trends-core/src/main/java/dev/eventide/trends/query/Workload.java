package dev.eventide.trends.query;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The queries of one query file, in the order they appear. Serializable, so Beam transforms can
 * carry it to workers.
 *
 * <pre>{@code
 * Workload workload = Workload.parse("""
 *     QUERY pool_trips
 *     RETURN COUNT(*)
 *     PATTERN SEQ(Request, Travel+)
 *     WHERE [driver]
 *     WITHIN 30 minutes SLIDE 10 minutes
 *     """);
 * Workload fromFile = Workload.fromFile(Path.of("rides.queries"));   // line and column in errors
 * }</pre>
 */
public record Workload(List<Query> queries) implements java.io.Serializable {

  public Workload {
    queries = List.copyOf(queries);
  }

  /**
   * Returns the workload written in the given text.
   *
   * @throws QueryException with line and column when the text is not a valid workload
   */
  public static Workload parse(String text) {
    return new Workload(QueryParser.parse(text));
  }

  /**
   * Returns the workload in a UTF-8 query file.
   *
   * @throws QueryException with the file, line and column when the text is not a valid workload
   * @throws UncheckedIOException when the file cannot be read
   */
  public static Workload fromFile(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read query file " + file + ": " + e.getMessage(), e);
    }
    try {
      return parse(text);
    } catch (QueryException e) {
      throw e.in(file.toString());
    }
  }
}
