package dev.eventide.trends.query;

/**
 * A query file that cannot be parsed or does not make sense, with the place of the problem (for a
 * query whose pattern cannot be compiled, the place where the query starts).
 *
 * <pre>{@code
 * try {
 *   Workload.fromFile(Path.of("rides.queries"));
 * } catch (QueryException e) {
 *   System.err.println(e.getMessage());   // rides.queries:3:17: expected ...
 * }
 * }</pre>
 */
public final class QueryException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final int line;
  private final int column;

  public QueryException(int line, int column, String problem) {
    super("line " + line + ", column " + column + ": " + problem);
    this.line = line;
    this.column = column;
  }

  private QueryException(String message, int line, int column) {
    super(message);
    this.line = line;
    this.column = column;
  }

  /** The same problem, its message prefixed with where the text came from (a file name). */
  public QueryException in(String source) {
    return new QueryException(source + ": " + getMessage(), line, column);
  }

  public int line() {
    return line;
  }

  public int column() {
    return column;
  }
}
