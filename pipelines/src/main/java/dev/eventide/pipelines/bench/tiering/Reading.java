package dev.eventide.pipelines.bench.tiering;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.VarLongCoder;

/**
 * One event of the tiering benchmark: its event time, its value, and when (this JVM's {@link
 * System#nanoTime()}) it entered the pipeline, so a result can tell how long its newest event took
 * to show up in it.
 */
public record Reading(long eventTimeMillis, long value, long arrivalNanos) {

  /** The deterministic coder of {@link Reading}. */
  public static final class Coder extends AtomicCoder<Reading> {
    private static final VarLongCoder LONG = VarLongCoder.of();

    @Override
    public void encode(Reading r, OutputStream out) throws IOException {
      LONG.encode(r.eventTimeMillis(), out);
      LONG.encode(r.value(), out);
      LONG.encode(r.arrivalNanos(), out);
    }

    @Override
    public Reading decode(InputStream in) throws IOException {
      return new Reading(LONG.decode(in), LONG.decode(in), LONG.decode(in));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
