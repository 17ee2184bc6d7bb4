package dev.eventide.pipelines.linearroad;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.HashSet;
import java.util.Set;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.values.KV;

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

  /** Encodes {@link SegmentStatistics} as three variable-length longs. */
  static final class Coder extends AtomicCoder<SegmentStatistics> {
    private static final VarLongCoder LONG = VarLongCoder.of();

    @Override
    public void encode(SegmentStatistics value, OutputStream out) throws IOException {
      LONG.encode(value.reports(), out);
      LONG.encode(value.vehicles(), out);
      LONG.encode(value.speedSum(), out);
    }

    @Override
    public SegmentStatistics decode(InputStream in) throws IOException {
      return new SegmentStatistics(LONG.decode(in), LONG.decode(in), LONG.decode(in));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
