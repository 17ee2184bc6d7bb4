package dev.eventide.trends.io;

import dev.eventide.trends.query.WorkloadChange;

/**
 * A workload change that cannot be used: a line of a changes file that is not a change, or a change
 * that does not apply to the workload in force at its time (its queries do not parse, a name is
 * already running or not running, or the workload would be left empty).
 *
 * <pre>{@code
 * try {
 *   WorkloadChange change = WorkloadChangeJson.parse(text, 3);
 * } catch (BadChangeException e) {
 *   System.err.println("line " + e.line() + ": " + e.reason());
 * }
 * }</pre>
 */
public final class BadChangeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final long line;
  private final transient WorkloadChange change;
  private final String reason;

  /** A line of a changes file that is not a change. */
  public BadChangeException(long line, String reason) {
    super("line " + line + ": " + reason);
    this.line = line;
    this.change = null;
    this.reason = reason;
  }

  /** A change that does not apply to the workload in force at its time. */
  public BadChangeException(WorkloadChange change, String reason) {
    super("workload change " + WorkloadChangeJson.format(change) + ": " + reason);
    this.line = 0;
    this.change = change;
    this.reason = reason;
  }

  /** The line of the changes file, or 0 for a change refused by the workload. */
  public long line() {
    return line;
  }

  /** The change refused, or null for a line that is not a change. */
  public WorkloadChange change() {
    return change;
  }

  /** What is wrong, without the line or the change. */
  public String reason() {
    return reason;
  }
}
