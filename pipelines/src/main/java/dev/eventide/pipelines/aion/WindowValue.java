package dev.eventide.pipelines.aion;

import dev.eventide.pipelines.RecordCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TypeDescriptor;

/**
 * One firing of an {@link AionWorkload} over a window: how many values it saw, their sum, and the
 * workload's result (an average, a bigram).
 */
public record WindowValue(long count, long sum, String result) {
  /** The coder of {@link WindowValue}: its count, sum and result, with Beam's coders. */
  public static Coder<WindowValue> coder() {
    return RecordCoder.of(
        TypeDescriptor.of(WindowValue.class),
        KvCoder.of(KvCoder.of(VarLongCoder.of(), VarLongCoder.of()), StringUtf8Coder.of()),
        v -> KV.of(KV.of(v.count(), v.sum()), v.result()),
        kv -> new WindowValue(kv.getKey().getKey(), kv.getKey().getValue(), kv.getValue()));
  }
}
