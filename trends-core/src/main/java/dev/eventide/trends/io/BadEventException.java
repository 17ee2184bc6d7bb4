package dev.eventide.trends.io;

/** An event line that is not valid JSON, not a valid event, or lacks what the workload needs. */
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
