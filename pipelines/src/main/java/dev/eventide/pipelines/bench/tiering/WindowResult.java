package dev.eventide.pipelines.bench.tiering;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;

/**
 * What a window function of the tiering benchmark returns: how many events it saw, its answer, and
 * the arrival time of the newest of them.
 */
public record WindowResult(long count, String answer, long newestArrivalNanos) {

  /** The coder of {@link WindowResult}. */
  public static final class Coder extends AtomicCoder<WindowResult> {
    private static final VarLongCoder LONG = VarLongCoder.of();
    private static final StringUtf8Coder STRING = StringUtf8Coder.of();

    @Override
    public void encode(WindowResult r, OutputStream out) throws IOException {
      LONG.encode(r.count(), out);
      STRING.encode(r.answer(), out);
      LONG.encode(r.newestArrivalNanos(), out);
    }

    @Override
    public WindowResult decode(InputStream in) throws IOException {
      return new WindowResult(LONG.decode(in), STRING.decode(in), LONG.decode(in));
    }
  }
}
