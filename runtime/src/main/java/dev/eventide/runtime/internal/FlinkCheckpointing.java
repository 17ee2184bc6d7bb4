package dev.eventide.runtime.internal;

import org.apache.beam.sdk.options.PipelineOptions;

/**
 * The checkpointing options of a pipeline that the Flink runner runs, read and set by name: the
 * library modules do not depend on the runner. Internal to Eventide's modules.
 *
 * <p>Flink's {@code DoFnOperator} refuses a {@code @RequiresStableInput} step without checkpoints
 * or with at-least-once ones; steps that hold their input until a checkpoint has completed ask for
 * it only with {@link #exactlyOnce() exactly-once checkpoints}.
 */
public final class FlinkCheckpointing {
  private final Class<? extends PipelineOptions> type;
  private final PipelineOptions view;

  private FlinkCheckpointing(Class<? extends PipelineOptions> type, PipelineOptions view) {
    this.type = type;
    this.view = view;
  }

  /** The Flink options of {@code options}, or null if the pipeline's runner is not Flink's. */
  public static FlinkCheckpointing of(PipelineOptions options) {
    if (!options.getRunner().getName().startsWith("org.apache.beam.runners.flink.")) {
      return null;
    }
    try {
      @SuppressWarnings("unchecked")
      Class<? extends PipelineOptions> type =
          (Class<? extends PipelineOptions>)
              Class.forName(
                  "org.apache.beam.runners.flink.FlinkPipelineOptions",
                  true,
                  options.getRunner().getClassLoader());
      return new FlinkCheckpointing(type, options.as(type));
    } catch (ClassNotFoundException e) {
      throw unreadable(e);
    }
  }

  /** Whether the pipeline checkpoints, exactly once. */
  public boolean exactlyOnce() {
    Object interval = call("getCheckpointingInterval");
    return interval instanceof Long millis
        && millis > 0
        && "EXACTLY_ONCE".equals(String.valueOf(call("getCheckpointingMode")));
  }

  /**
   * Lets stable-input steps hand on what they hold when the input ends or the job is drained, as
   * they do at a completed checkpoint.
   */
  public void enableStableInputDrain() {
    try {
      type.getMethod("setEnableStableInputDrain", Boolean.class).invoke(view, true);
    } catch (ReflectiveOperationException e) {
      throw unreadable(e);
    }
  }

  /**
   * Lets sources that have read all their input finish, unless the pipeline says how long they
   * idle: the runner's default with checkpoints keeps them idle for ever, so that a job whose input
   * ends (its unbounded sources reach the end of time) never finishes once it has a bounded source
   * too. Flink 1.19 goes on checkpointing with finished tasks (FLIP-147, on by default).
   */
  public void finishIdleSources() {
    Object idle = call("getShutdownSourcesAfterIdleMs");
    if (idle instanceof Long millis && millis < 0) {
      try {
        type.getMethod("setShutdownSourcesAfterIdleMs", Long.class).invoke(view, 0L);
      } catch (ReflectiveOperationException e) {
        throw unreadable(e);
      }
    }
  }

  private Object call(String getter) {
    try {
      return type.getMethod(getter).invoke(view);
    } catch (ReflectiveOperationException e) {
      throw unreadable(e);
    }
  }

  private static IllegalStateException unreadable(Exception e) {
    return new IllegalStateException(
        "Eventide could not read or set the checkpointing options of the Flink runner: " + e, e);
  }
}
