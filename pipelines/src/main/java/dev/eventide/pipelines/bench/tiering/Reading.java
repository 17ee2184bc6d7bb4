package dev.eventide.pipelines.bench.tiering;

import dev.eventide.pipelines.RecordCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TypeDescriptor;

/**
 * One event of the tiering benchmark: its event time, its value, and when (this JVM's {@link
 * System#nanoTime()}) it entered the pipeline, so a result can tell how long its newest event took
 * to show up in it.
 */
public record Reading(long eventTimeMillis, long value, long arrivalNanos) {

  /** The coder of {@link Reading}: its three longs, with Beam's coders. */
  public static Coder<Reading> coder() {
    return RecordCoder.of(
        TypeDescriptor.of(Reading.class),
        KvCoder.of(KvCoder.of(VarLongCoder.of(), VarLongCoder.of()), VarLongCoder.of()),
        r -> KV.of(KV.of(r.eventTimeMillis(), r.value()), r.arrivalNanos()),
        kv -> new Reading(kv.getKey().getKey(), kv.getKey().getValue(), kv.getValue()));
  }
}
