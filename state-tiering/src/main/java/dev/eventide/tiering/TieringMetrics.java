package dev.eventide.tiering;

import dev.eventide.runtime.JobMetrics;
import org.apache.beam.sdk.PipelineResult;

/**
 * Reads {@link TieredWindow}'s metrics from a finished pipeline, summed over every {@code
 * TieredWindow} of it (attempted values: Flink does not report committed ones).
 *
 * <pre>{@code
 * PipelineResult result = pipeline.run();
 * result.waitUntilFinish();
 * long blocks = TieringMetrics.counter(result, "blocksWritten");
 * double ioWait = TieringMetrics.mean(result, "lateFiringIoWaitMillis");
 * long held = TieringMetrics.counter(result, TieringMetrics.WINDOWS_HOLDING_STATE);   // 0 at the end
 * }</pre>
 */
public final class TieringMetrics {
  /** The namespace of every {@code TieredWindow} metric. */
  public static final String NAMESPACE = "eventide.tiering";

  /**
   * The counter of keys whose lateness state (cleanup schedule and lateness sample, kept when
   * {@code TieredWindow} hands out dead letters or learns its bounds) is held: up by one when a key
   * gets it, down by one when every window of the key has expired and it is cleared. Counted per
   * attempt, like {@link #WINDOWS_HOLDING_STATE}.
   */
  public static final String GATE_KEYS_HOLDING_STATE = "gateKeysHoldingState";

  /**
   * The counter of (key, window) pairs whose values {@code TieredWindow} holds (Beam state and
   * blocks): up by one at a window's first value, down by one when its cleanup bound is over and it
   * is purged.
   *
   * <p>A counter counts what one attempt of the job did, and Flink reports the metrics of the job's
   * last attempt: after a restart from a checkpoint, the windows restored with the state were
   * counted by the attempt that failed, so clearing them takes this counter below 0 (as far as the
   * number of windows restored, once all have expired). Without a restart it reads 0 once every
   * window has expired. ({@code TieredWindowCheckpointTest} reads it after a failover.)
   */
  public static final String WINDOWS_HOLDING_STATE = "windowsHoldingState";

  private TieringMetrics() {}

  /** The sum of a counter, such as {@code "blocksWritten"}. */
  public static long counter(PipelineResult result, String name) {
    return JobMetrics.counter(result, NAMESPACE, name);
  }

  /** The mean of a distribution, such as {@code "lateFiringIoWaitMillis"}; 0 if it is empty. */
  public static double mean(PipelineResult result, String name) {
    return JobMetrics.mean(result, NAMESPACE, name);
  }
}
