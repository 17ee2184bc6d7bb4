package dev.eventide.pipelines.soak;

import dev.eventide.runtime.JobMetrics;
import dev.eventide.tiering.TieringMetrics;
import dev.eventide.transforms.primitives.TransformMetrics;
import dev.eventide.trends.beam.TrendMetrics;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.beam.sdk.PipelineResult;

/**
 * What each stateful step of the soak job holds, read from its metrics while it runs (the
 * DirectRunner's result, or the Flink REST API) or from its result after it ends. Each gauge is a
 * counter raised when a step creates a piece of state and lowered when it clears it, so it is 0
 * once the watermark has passed everything.
 */
public final class SoakGauges {
  /**
   * One gauge: {@code name} in {@code namespace}, counted by the steps under {@code step}, less
   * {@code minus} when it is a difference (blocks written less blocks deleted).
   */
  public record Gauge(String label, String step, String namespace, String name, String minus) {
    long read(Counters counters) {
      long value = counters.counter(step, namespace, name);
      return minus == null ? value : value - counters.counter(step, namespace, minus);
    }
  }

  /** Where counters are read: a job's result, or a reading of the Flink REST API. */
  @FunctionalInterface
  interface Counters {
    long counter(String step, String namespace, String name);
  }

  /**
   * The blocks each step has in the store: blocks written less blocks deleted, two counters of two
   * operators. Exact once the job has ended; while it runs, each operator's counters reach the REST
   * API at their own times, so the difference is read from the store instead ({@link StoreSize}).
   */
  static final List<Gauge> BLOCKS =
      List.of(
          new Gauge(
              "tieredBlocks",
              SoakPipeline.TIERED_WINDOW,
              TieringMetrics.NAMESPACE,
              "blocksWritten",
              "blocksPurged"),
          new Gauge(
              "trendBlocks",
              SoakPipeline.TREND_AGGREGATE,
              TrendMetrics.NAMESPACE,
              "blocksWritten",
              "blocksDeleted"));

  /**
   * The gauges a verdict reports without judging, because a reading samples a sawtooth: the
   * elements in flight (the filter's copies waiting for the watermark to pass their timestamp, the
   * join's waiting copies and loop iterations), which swing with when windows fire and with the
   * machine's load (by 27% between thirds of one three-minute run), and the cleared trend keys
   * remembered for ten minutes of event time, a horizon as short as a reading period (by 16%
   * between thirds of a 30-minute run). A backlog that grows shows in the watermark lags, and state
   * that is never cleared in the checkpoint's size.
   */
  public static final Set<String> REPORTED_ONLY =
      Set.of("filterKeys", "joinKeys", "trendKeysRemembered");

  /**
   * The series reported but not judged in {@code samples}: {@link #REPORTED_ONLY}, and the
   * checkpoint's file size where its live state was read, since the files count what RocksDB has
   * not compacted away yet.
   */
  public static Set<String> reportedOnly(List<SoakSample> samples) {
    Set<String> reported = new java.util.TreeSet<>(REPORTED_ONLY);
    if (samples.stream().anyMatch(s -> s.checkpointLiveBytes() >= 0)) {
      reported.add("checkpointBytes");
    }
    return reported;
  }

  /** The steps whose output watermark lag behind the source's the soak reports. */
  public static final List<String> LAGGING_STEPS =
      List.of(
          SoakPipeline.TIERED_WINDOW,
          SoakPipeline.TREND_AGGREGATE,
          SoakPipeline.FILTER,
          SoakPipeline.JOIN);

  /** Every gauge, in the order the soak prints them. */
  public static final List<Gauge> GAUGES =
      List.of(
          new Gauge(
              "tieredWindows",
              SoakPipeline.TIERED_WINDOW,
              TieringMetrics.NAMESPACE,
              TieringMetrics.WINDOWS_HOLDING_STATE,
              null),
          new Gauge(
              "gateKeys",
              SoakPipeline.TIERED_WINDOW,
              TieringMetrics.NAMESPACE,
              TieringMetrics.GATE_KEYS_HOLDING_STATE,
              null),
          new Gauge(
              "trendKeys",
              SoakPipeline.TREND_AGGREGATE,
              TrendMetrics.NAMESPACE,
              "keysHoldingState",
              null),
          new Gauge(
              "trendKeysRemembered",
              SoakPipeline.TREND_AGGREGATE,
              TrendMetrics.NAMESPACE,
              "clearedKeysRemembered",
              null),
          new Gauge(
              "filterKeys",
              SoakPipeline.FILTER,
              TransformMetrics.NAMESPACE,
              TransformMetrics.KEYS_HOLDING_STATE,
              null),
          new Gauge(
              "joinKeys",
              SoakPipeline.JOIN,
              TransformMetrics.NAMESPACE,
              TransformMetrics.KEYS_HOLDING_STATE,
              null));

  private SoakGauges() {}

  /** Every gauge's value and the blocks each step has in the store, by label, in print order. */
  public static Map<String, Long> read(PipelineResult result) {
    Counters counters =
        (step, namespace, name) -> JobMetrics.counter(result, step, namespace, name);
    Map<String, Long> values = read(GAUGES, counters);
    values.putAll(read(BLOCKS, counters));
    return values;
  }

  /** Every gauge's value in a reading of the Flink REST API, by label, in print order. */
  static Map<String, Long> read(FlinkRest.Reading reading) {
    return read(GAUGES, reading::counter);
  }

  private static Map<String, Long> read(List<Gauge> gauges, Counters counters) {
    Map<String, Long> values = new LinkedHashMap<>();
    for (Gauge g : gauges) {
      values.put(g.label(), g.read(counters));
    }
    return values;
  }

  /**
   * How far each step's output watermark is behind the source's, in milliseconds of event time, by
   * step: the input watermark of the step that counts its outputs against the input watermark of
   * the step after the source. Those are what the steps after them see; a step's own operators
   * include branches that feed nothing downstream (its purges), whose watermarks say nothing about
   * its output. A step without a watermark yet is left out.
   */
  static Map<String, Long> lags(FlinkRest.Reading reading) {
    Map<String, Long> lags = new LinkedHashMap<>();
    Long source = reading.watermark(SoakPipeline.KEYS);
    for (String step : LAGGING_STEPS) {
      Long w = reading.watermark(SoakPipeline.counting(step));
      if (source != null && w != null) {
        lags.put(step, Math.max(0, source - w));
      }
    }
    return lags;
  }

  /** The events read so far. */
  public static long events(PipelineResult result) {
    return JobMetrics.counter(result, SoakPipeline.NAMESPACE, SoakPipeline.EVENTS);
  }

  static long events(FlinkRest.Reading reading) {
    return reading.counter(SoakPipeline.KEYS, SoakPipeline.NAMESPACE, SoakPipeline.EVENTS);
  }
}
