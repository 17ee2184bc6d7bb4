package dev.eventide.pipelines.windows;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.StructuredCoder;
import org.apache.beam.sdk.coders.VarLongCoder;

/**
 * A window's final result for one key: the value of its last pane, once the window's allowed
 * lateness is over, with the window's bounds and how many panes it fired.
 *
 * @param start the window's start, in epoch milliseconds
 * @param end the window's end (exclusive), in epoch milliseconds
 * @param panes how many panes the window fired (1 when no late value changed it)
 * @param value the last pane's value
 * @param <V> the value
 */
public record FinalValue<V>(long start, long end, long panes, V value) {
  /** Encodes a {@link FinalValue} with its value's coder; deterministic when that coder is. */
  public static final class FinalValueCoder<V> extends StructuredCoder<FinalValue<V>> {
    private static final VarLongCoder LONG = VarLongCoder.of();
    private final Coder<V> valueCoder;

    private FinalValueCoder(Coder<V> valueCoder) {
      this.valueCoder = valueCoder;
    }

    public static <V> FinalValueCoder<V> of(Coder<V> valueCoder) {
      return new FinalValueCoder<>(valueCoder);
    }

    @Override
    public void encode(FinalValue<V> value, OutputStream out) throws IOException {
      LONG.encode(value.start(), out);
      LONG.encode(value.end(), out);
      LONG.encode(value.panes(), out);
      valueCoder.encode(value.value(), out);
    }

    @Override
    public FinalValue<V> decode(InputStream in) throws IOException {
      return new FinalValue<>(
          LONG.decode(in), LONG.decode(in), LONG.decode(in), valueCoder.decode(in));
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
