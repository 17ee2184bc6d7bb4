package dev.eventide.pipelines.stocks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Locale;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.values.KV;

/**
 * A symbol's rolling aggregates over one sliding window: how many prices, the lowest, the highest
 * and their sum, in cents.
 */
public record Rolling(long count, long minCents, long maxCents, long sumCents) {
  /** The aggregates of {@code prices}, as (event time, cents) pairs; empty input is refused. */
  static Rolling of(Iterable<KV<Long, Long>> prices) {
    long count = 0;
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    long sum = 0;
    for (KV<Long, Long> price : prices) {
      long cents = price.getValue();
      count++;
      min = Math.min(min, cents);
      max = Math.max(max, cents);
      sum = Math.addExact(sum, cents);
    }
    if (count == 0) {
      throw new IllegalArgumentException("a window fires only with prices in it");
    }
    return new Rolling(count, min, max, sum);
  }

  /** "count=N min=D max=D mean=D", prices in currency units, the mean to a hundredth of a cent. */
  String describe() {
    return String.format(
        Locale.ROOT,
        "count=%d min=%s max=%s mean=%.4f",
        count,
        StockMarketPipeline.dollars(minCents),
        StockMarketPipeline.dollars(maxCents),
        sumCents / (double) count / 100);
  }

  /** Encodes a {@link Rolling} as four variable-length longs. */
  static final class Coder extends AtomicCoder<Rolling> {
    private static final VarLongCoder LONG = VarLongCoder.of();

    @Override
    public void encode(Rolling value, OutputStream out) throws IOException {
      LONG.encode(value.count(), out);
      LONG.encode(value.minCents(), out);
      LONG.encode(value.maxCents(), out);
      LONG.encode(value.sumCents(), out);
    }

    @Override
    public Rolling decode(InputStream in) throws IOException {
      return new Rolling(LONG.decode(in), LONG.decode(in), LONG.decode(in), LONG.decode(in));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
