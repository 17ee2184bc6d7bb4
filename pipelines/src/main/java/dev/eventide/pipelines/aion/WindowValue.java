package dev.eventide.pipelines.aion;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;

/**
 * One firing of an {@link AionWorkload} over a window: how many values it saw, their sum, and the
 * workload's result (an average, a bigram).
 */
public record WindowValue(long count, long sum, String result) {
  /** Encodes a {@link WindowValue}: two variable-length longs and a UTF-8 string. */
  public static final class Coder extends AtomicCoder<WindowValue> {
    private static final VarLongCoder LONG = VarLongCoder.of();
    private static final StringUtf8Coder STRING = StringUtf8Coder.of();

    @Override
    public void encode(WindowValue value, OutputStream out) throws IOException {
      LONG.encode(value.count(), out);
      LONG.encode(value.sum(), out);
      STRING.encode(value.result(), out);
    }

    @Override
    public WindowValue decode(InputStream in) throws IOException {
      return new WindowValue(LONG.decode(in), LONG.decode(in), STRING.decode(in));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
