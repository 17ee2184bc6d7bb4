package dev.eventide.trends.query;

import java.util.List;
import java.util.Optional;

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

  public Optional<Query> query(String name) {
    return queries.stream().filter(q -> q.name().equals(name)).findFirst();
  }
}
