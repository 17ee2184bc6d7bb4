package dev.eventide.pipelines.soak;

import java.util.LinkedHashMap;
import java.util.Map;
import org.joda.time.Instant;

/**
 * One reading of a running soak job.
 *
 * @param seconds wall-clock seconds since the job started
 * @param events events read so far
 * @param eventTime the event time the source has reached (the arrival time of its last event)
 * @param gauges what each stateful step holds, by {@link SoakGauges} label
 * @param heapAfterGc heap bytes in use after the last collection of the JVM the job runs in; -1
 *     where the job runs elsewhere (a session cluster)
 * @param checkpointBytes the size of the last completed checkpoint (Flink's {@code state_size}:
 *     with RocksDB's incremental checkpoints, the files it refers to, entries RocksDB has not
 *     compacted away yet included); -1 where unknown
 * @param checkpointLiveBytes the bytes of the live keyed entries of the last completed checkpoint
 *     ({@link CheckpointEntries}); -1 where it cannot be read (not RocksDB, not a local path)
 * @param storeBlocks the blocks in the store; -1 where it cannot be counted (not a local one)
 * @param storeBytes their bytes; -1 where they cannot be counted
 * @param watermarkLags how far each step's output watermark is behind the source's, in ms of event
 *     time, by step; empty where the runner does not tell (the DirectRunner)
 */
public record SoakSample(
    double seconds,
    long events,
    Instant eventTime,
    Map<String, Long> gauges,
    long heapAfterGc,
    long checkpointBytes,
    long checkpointLiveBytes,
    long storeBlocks,
    long storeBytes,
    Map<String, Long> watermarkLags) {

  /** The sample's series by name: the gauges, then the store's and checkpoint's sizes, if known. */
  Map<String, Long> series() {
    Map<String, Long> series = new LinkedHashMap<>(gauges);
    if (storeBlocks >= 0) {
      series.put("storeBlocks", storeBlocks);
      series.put("storeBytes", storeBytes);
    }
    if (checkpointBytes >= 0) {
      series.put("checkpointBytes", checkpointBytes);
    }
    if (checkpointLiveBytes >= 0) {
      series.put("checkpointLiveBytes", checkpointLiveBytes);
    }
    return series;
  }
}
