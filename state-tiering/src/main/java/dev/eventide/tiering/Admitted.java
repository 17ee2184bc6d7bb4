package dev.eventide.tiering;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CustomCoder;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A value on its way into {@link TieredWindowDoFn}, with what the {@link LatenessGate} decided for
 * each of its windows: which ones take it, their cleanup bound, and when a late pane with it fires.
 * Without a gate ({@code windows} null) every window takes it, with the allowed lateness as its
 * bound and a late pane at the next watermark advance.
 *
 * @param windows per admitted window: its start, its cleanup bound (milliseconds after its end) and
 *     the time its late pane fires (milliseconds after its end), flattened in threes
 */
record Admitted<V>(V value, long @Nullable [] windows) {

  /** The terms of the window that starts at {@code start}, or null if the gate kept it out. */
  @Nullable WindowTerms termsOf(long start) {
    if (windows == null) {
      return null;
    }
    for (int i = 0; i < windows.length; i += 3) {
      if (windows[i] == start) {
        return new WindowTerms(windows[i + 1], windows[i + 2]);
      }
    }
    return null;
  }

  /** One window's terms for this value. */
  record WindowTerms(long cleanupMillis, long fireMillis) {}

  static long[] flatten(List<long[]> windows) {
    long[] flat = new long[windows.size() * 3];
    for (int i = 0; i < windows.size(); i++) {
      System.arraycopy(windows.get(i), 0, flat, 3 * i, 3);
    }
    return flat;
  }

  /** The value with its coder, then the windows (a count, 0 for none decided, and the longs). */
  static final class AdmittedCoder<V> extends CustomCoder<Admitted<V>> {
    private final Coder<V> valueCoder;

    AdmittedCoder(Coder<V> valueCoder) {
      this.valueCoder = valueCoder;
    }

    @Override
    public void encode(Admitted<V> admitted, OutputStream out) throws IOException {
      valueCoder.encode(admitted.value(), out);
      DataOutputStream data = new DataOutputStream(out);
      long[] windows = admitted.windows();
      data.writeInt(windows == null ? -1 : windows.length);
      if (windows != null) {
        for (long w : windows) {
          data.writeLong(w);
        }
      }
      data.flush();
    }

    @Override
    public Admitted<V> decode(InputStream in) throws IOException {
      V value = valueCoder.decode(in);
      DataInputStream data = new DataInputStream(in);
      int n = data.readInt();
      if (n < 0) {
        return new Admitted<>(value, null);
      }
      long[] windows = new long[n];
      for (int i = 0; i < n; i++) {
        windows[i] = data.readLong();
      }
      return new Admitted<>(value, windows);
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
