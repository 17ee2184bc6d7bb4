package dev.eventide.trends.beam;

import dev.eventide.runtime.JobMetrics;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;

/**
 * The Beam metrics of {@link TrendAggregate}, namespace {@value #NAMESPACE}, and a reader for a
 * finished pipeline (attempted values, summed over every {@code TrendAggregate}: Flink does not
 * report committed ones).
 *
 * <pre>{@code
 * PipelineResult result = pipeline.run();
 * result.waitUntilFinish();
 * long late = TrendMetrics.counter(result, "lateEvents");
 * long held = TrendMetrics.counter(result, "keysHoldingState");   // 0 once nothing is pending
 * }</pre>
 *
 * <ul>
 *   <li>{@code events}: input events; {@code eventsIgnored}: of a type no query reads;
 *   <li>{@code lateEvents}: arrived after their time was evaluated, within the allowed lateness
 *       (their windows are re-evaluated); {@code reEvaluations}: batches of them evaluated;
 *   <li>{@code deadLetters}: events in the dead-letter output (schema, time range, too late);
 *   <li>{@code windowsEmitted}: results emitted (one per query, window and group and pane), {@code
 *       latePanes} of them in late panes;
 *   <li>{@code eventsRetained}: evaluated events kept until their windows expire, for late events
 *       to re-evaluate them with (none in tumbling windows without allowed lateness);
 *   <li>{@code blocksWritten}, {@code bytesWritten}, {@code blocksRead}, {@code blocksDeleted}: the
 *       blocks of retained events in the block store ({@link TrendAggregate#withRetainedEventsIn});
 *   <li>{@code sharedBursts}, {@code splitBursts}, {@code snapshots}: HAMLET's sharing decisions
 *       and snapshots, as the core counts them;
 *   <li>{@code workloadVersions}, {@code refusedChanges}: with changes sent while the job runs
 *       ({@link TrendAggregate#withWorkloadChanges(org.apache.beam.sdk.values.PCollection,
 *       String)}), the versions of the workload the change log made and the changes it refused;
 *       {@code resultsOutsideTheirVersion}: results a version's keys gave for windows of a later
 *       version or of a query removed before the window's end, dropped.
 * </ul>
 */
public final class TrendMetrics {
  public static final String NAMESPACE = "eventide.trends";

  static final Counter EVENTS = Metrics.counter(NAMESPACE, "events");
  static final Counter EVENTS_IGNORED = Metrics.counter(NAMESPACE, "eventsIgnored");
  static final Counter LATE_EVENTS = Metrics.counter(NAMESPACE, "lateEvents");
  static final Counter RE_EVALUATIONS = Metrics.counter(NAMESPACE, "reEvaluations");
  static final Counter DEAD_LETTERS = Metrics.counter(NAMESPACE, "deadLetters");
  static final Counter WINDOWS_EMITTED = Metrics.counter(NAMESPACE, "windowsEmitted");
  static final Counter LATE_PANES = Metrics.counter(NAMESPACE, "latePanes");
  static final Counter EVENTS_RETAINED = Metrics.counter(NAMESPACE, "eventsRetained");
  static final Counter BLOCKS_WRITTEN = Metrics.counter(NAMESPACE, "blocksWritten");
  static final Counter BYTES_WRITTEN = Metrics.counter(NAMESPACE, "bytesWritten");
  static final Counter BLOCKS_READ = Metrics.counter(NAMESPACE, "blocksRead");
  static final Counter BLOCKS_DELETED = Metrics.counter(NAMESPACE, "blocksDeleted");
  static final Counter SHARED_BURSTS = Metrics.counter(NAMESPACE, "sharedBursts");
  static final Counter SPLIT_BURSTS = Metrics.counter(NAMESPACE, "splitBursts");
  static final Counter SNAPSHOTS = Metrics.counter(NAMESPACE, "snapshots");
  static final Counter WORKLOAD_VERSIONS = Metrics.counter(NAMESPACE, "workloadVersions");
  static final Counter REFUSED_CHANGES = Metrics.counter(NAMESPACE, "refusedChanges");
  static final Counter REPEATED_CHANGES = Metrics.counter(NAMESPACE, "repeatedChanges");
  static final Counter RESULTS_OUTSIDE_VERSION =
      Metrics.counter(NAMESPACE, "resultsOutsideTheirVersion");

  /**
   * Keys (sharing unit, GROUPBY group) holding state: raised when created, lowered when cleared.
   */
  static final Counter KEYS_HOLDING_STATE = Metrics.counter(NAMESPACE, "keysHoldingState");

  /**
   * Keys whose state was cleared and that remember, for {@link
   * TrendAggregate#withClearedKeyMemory}, the watermark they were cleared at.
   */
  static final Counter CLEARED_KEYS_REMEMBERED =
      Metrics.counter(NAMESPACE, "clearedKeysRemembered");

  private TrendMetrics() {}

  /** The sum of a counter of a finished pipeline, such as {@code "deadLetters"}. */
  public static long counter(PipelineResult result, String name) {
    return JobMetrics.counter(result, NAMESPACE, name);
  }
}
