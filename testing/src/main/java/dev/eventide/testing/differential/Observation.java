package dev.eventide.testing.differential;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CustomCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.joda.time.Instant;

/**
 * One output element as a runner emitted it: the value with its timestamp, window and pane timing,
 * and which side of a {@link Differential} produced it.
 */
final class Observation<T> {
  final String side;
  final T value;
  final Instant timestamp;
  final String window;
  final String paneTiming;

  Observation(String side, T value, Instant timestamp, String window, String paneTiming) {
    this.side = side;
    this.value = value;
    this.timestamp = timestamp;
    this.window = window;
    this.paneTiming = paneTiming;
  }

  static final class ObservationCoder<T> extends CustomCoder<Observation<T>> {
    private static final StringUtf8Coder STRING = StringUtf8Coder.of();
    private static final VarLongCoder LONG = VarLongCoder.of();
    private final Coder<T> valueCoder;

    ObservationCoder(Coder<T> valueCoder) {
      this.valueCoder = valueCoder;
    }

    @Override
    public void encode(Observation<T> o, OutputStream out) throws IOException {
      STRING.encode(o.side, out);
      valueCoder.encode(o.value, out);
      LONG.encode(o.timestamp.getMillis(), out);
      STRING.encode(o.window, out);
      STRING.encode(o.paneTiming, out);
    }

    @Override
    public Observation<T> decode(InputStream in) throws IOException {
      return new Observation<>(
          STRING.decode(in),
          valueCoder.decode(in),
          new Instant(LONG.decode(in)),
          STRING.decode(in),
          STRING.decode(in));
    }

    @Override
    public List<? extends Coder<?>> getCoderArguments() {
      return List.of(valueCoder);
    }

    @Override
    public void verifyDeterministic() throws NonDeterministicException {
      verifyDeterministic(this, "the value coder must be deterministic", valueCoder);
    }
  }
}
