package dev.eventide.trends.query;

import java.util.List;

/** The queries of one query file, in the order they appear. */
public record Workload(List<Query> queries) {

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
}
