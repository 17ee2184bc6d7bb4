package dev.eventide.tiering;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CustomCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A value on its way into {@link TieredWindowDoFn} for one of its windows, with its event time and
 * that window's terms: its cleanup bound and when a late pane with the value fires (both in
 * milliseconds after the window's end; {@code fireMillis} 0: at the next watermark advance).
 * Without a {@link LatenessGate} the bound is the allowed lateness and late panes fire at the next
 * watermark advance.
 *
 * <p>On its way it is timestamped at its deadline, the last instant at which the windowed step must
 * have it: the window's end if the value is on time, so that it is in the on-time pane, and the
 * window's expiry (its end plus the cleanup bound) if a {@link LatenessGate} met it late. The
 * element then holds the windowed step's watermark no later than that until it arrives. With its
 * event time as timestamp, a value behind the watermark would hold nothing where a runner regroups
 * a stateful step's input (the DirectRunner does, in a triggered {@code GroupByKey} whose watermark
 * hold skips late elements), and the windowed step's watermark could pass the window's end, or its
 * expiry, before the value arrives. {@link KeyByWindow} does not read the watermark: it stamps
 * every value at the window's end.
 */
record Admitted<V>(V value, long eventTimeMillis, long cleanupMillis, long fireMillis) {

  /** The value with its coder, then its event time and the two terms. */
  static final class AdmittedCoder<V> extends CustomCoder<Admitted<V>> {
    private static final VarLongCoder LONG = VarLongCoder.of();
    private final Coder<V> valueCoder;

    AdmittedCoder(Coder<V> valueCoder) {
      this.valueCoder = valueCoder;
    }

    @Override
    public void encode(Admitted<V> admitted, OutputStream out) throws IOException {
      valueCoder.encode(admitted.value(), out);
      LONG.encode(admitted.eventTimeMillis(), out);
      LONG.encode(admitted.cleanupMillis(), out);
      LONG.encode(admitted.fireMillis(), out);
    }

    @Override
    public Admitted<V> decode(InputStream in) throws IOException {
      return new Admitted<>(
          valueCoder.decode(in), LONG.decode(in), LONG.decode(in), LONG.decode(in));
    }

    @Override
    public List<? extends Coder<?>> getCoderArguments() {
      return List.of(valueCoder);
    }

    @Override
    public void verifyDeterministic() throws NonDeterministicException {
      verifyDeterministic(this, "the value coder must be deterministic", valueCoder);
    }

    @Override
    public boolean equals(@Nullable Object other) {
      return other instanceof AdmittedCoder<?> c && c.valueCoder.equals(valueCoder);
    }

    @Override
    public int hashCode() {
      return valueCoder.hashCode();
    }
  }
}
