package dev.eventide.trends.io;

/**
 * An event line further out of time order than the job allows ({@link TrendJob.Options}): the run
 * stops at it, since evaluating it late would change results that are already written.
 */
public final class EventOrderException extends RuntimeException {
  private final long line;

  public EventOrderException(long line, String reason) {
    super("line " + line + ": " + reason);
    this.line = line;
  }

  public long line() {
    return line;
  }

  /** The message without the line. */
  public String reason() {
    String message = getMessage();
    return message.substring(message.indexOf(": ") + 2);
  }
}
