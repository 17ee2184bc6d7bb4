package dev.eventide.pipelines.stocks;

import dev.eventide.pipelines.RecordCoder;
import java.util.Locale;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TypeDescriptor;

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

  /** The coder of {@link Rolling}: its four longs, with Beam's coders. */
  public static Coder<Rolling> coder() {
    KvCoder<Long, Long> pair = KvCoder.of(VarLongCoder.of(), VarLongCoder.of());
    return RecordCoder.of(
        TypeDescriptor.of(Rolling.class),
        KvCoder.of(pair, pair),
        r -> KV.of(KV.of(r.count(), r.minCents()), KV.of(r.maxCents(), r.sumCents())),
        kv ->
            new Rolling(
                kv.getKey().getKey(),
                kv.getKey().getValue(),
                kv.getValue().getKey(),
                kv.getValue().getValue()));
  }
}
