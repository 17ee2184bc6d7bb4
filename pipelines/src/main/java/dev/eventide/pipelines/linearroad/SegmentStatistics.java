package dev.eventide.pipelines.linearroad;

import dev.eventide.pipelines.RecordCoder;
import java.util.HashSet;
import java.util.Set;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TypeDescriptor;

/**
 * A segment's traffic in one minute: position reports, distinct vehicles, and the sum of the
 * reported speeds (mph).
 */
public record SegmentStatistics(long reports, long vehicles, long speedSum) {
  /** The statistics of a minute's reports, as (vehicle, speed) pairs. */
  static SegmentStatistics of(Iterable<KV<Integer, Integer>> reports) {
    long count = 0;
    long speedSum = 0;
    Set<Integer> vehicles = new HashSet<>();
    for (KV<Integer, Integer> report : reports) {
      count++;
      speedSum += report.getValue();
      vehicles.add(report.getKey());
    }
    return new SegmentStatistics(count, vehicles.size(), speedSum);
  }

  /** The mean reported speed. */
  double averageSpeed() {
    return reports == 0 ? 0 : speedSum / (double) reports;
  }

  /** The coder of {@link SegmentStatistics}: its three longs, with Beam's coders. */
  public static Coder<SegmentStatistics> coder() {
    return RecordCoder.of(
        TypeDescriptor.of(SegmentStatistics.class),
        KvCoder.of(KvCoder.of(VarLongCoder.of(), VarLongCoder.of()), VarLongCoder.of()),
        s -> KV.of(KV.of(s.reports(), s.vehicles()), s.speedSum()),
        kv -> new SegmentStatistics(kv.getKey().getKey(), kv.getKey().getValue(), kv.getValue()));
  }
}
