package dev.eventide.trends.io;

/**
 * An event line further out of time order than the job allows ({@link TrendJob.Options}): the run
 * stops at it, since evaluating it late would change results that are already written.
 *
 * <pre>{@code
 * try (TextLines in = TextLines.open(Files.newInputStream(Path.of("events.jsonl")))) {
 *   TrendJob.run(workload, Engines.HAMLET, in, results, null, TrendJob.Options.inTimeOrder());
 * } catch (EventOrderException e) {
 *   // an event older than --max-delay allows: sort the file, or allow a delay
 *   System.err.println("line " + e.line() + ": " + e.reason());
 * }
 * }</pre>
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
