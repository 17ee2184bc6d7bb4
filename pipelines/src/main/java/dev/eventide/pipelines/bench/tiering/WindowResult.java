package dev.eventide.pipelines.bench.tiering;

import dev.eventide.pipelines.RecordCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TypeDescriptor;

/**
 * What a window function of the tiering benchmark returns: how many events it saw, its answer, and
 * the arrival time of the newest of them.
 */
public record WindowResult(long count, String answer, long newestArrivalNanos) {

  /** The coder of {@link WindowResult}: its count, answer and arrival, with Beam's coders. */
  public static Coder<WindowResult> coder() {
    return RecordCoder.of(
        TypeDescriptor.of(WindowResult.class),
        KvCoder.of(KvCoder.of(VarLongCoder.of(), StringUtf8Coder.of()), VarLongCoder.of()),
        r -> KV.of(KV.of(r.count(), r.answer()), r.newestArrivalNanos()),
        kv -> new WindowResult(kv.getKey().getKey(), kv.getKey().getValue(), kv.getValue()));
  }
}
