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
 * A value on its way into {@link TieredWindowDoFn} for one of its windows, with that window's
 * terms: its cleanup bound and when a late pane with the value fires (both in milliseconds after
 * the window's end; {@code fireMillis} 0: at the next watermark advance). Without a {@link
 * LatenessGate} the bound is the allowed lateness and late panes fire at the next watermark
 * advance.
 */
record Admitted<V>(V value, long cleanupMillis, long fireMillis) {

  /** The value with its coder, then the two terms. */
  static final class AdmittedCoder<V> extends CustomCoder<Admitted<V>> {
    private static final VarLongCoder LONG = VarLongCoder.of();
    private final Coder<V> valueCoder;

    AdmittedCoder(Coder<V> valueCoder) {
      this.valueCoder = valueCoder;
    }

    @Override
    public void encode(Admitted<V> admitted, OutputStream out) throws IOException {
      valueCoder.encode(admitted.value(), out);
      LONG.encode(admitted.cleanupMillis(), out);
      LONG.encode(admitted.fireMillis(), out);
    }

    @Override
    public Admitted<V> decode(InputStream in) throws IOException {
      return new Admitted<>(valueCoder.decode(in), LONG.decode(in), LONG.decode(in));
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
