package dev.eventide.trends.io;

/**
 * An event line that is not valid JSON, not a valid event, or lacks what the workload needs.
 *
 * <pre>{@code
 * try {
 *   Event e = EventJson.parse(text, 12);
 * } catch (BadEventException e) {
 *   System.err.println("line " + e.line() + ": " + e.reason());
 * }
 * }</pre>
 */
public final class BadEventException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final long line;
  private final String reason;

  public BadEventException(long line, String reason) {
    super("line " + line + ": " + reason);
    this.line = line;
    this.reason = reason;
  }

  public long line() {
    return line;
  }

  /** What is wrong, without the line number. */
  public String reason() {
    return reason;
  }
}
