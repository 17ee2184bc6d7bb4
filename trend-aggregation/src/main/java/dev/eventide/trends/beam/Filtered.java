package dev.eventide.trends.beam;

import dev.eventide.trends.TrendResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;

/**
 * What a key (version tag and query) of {@link ResultFilterFn} reads: a result of the version's
 * query with the pane it came out in, or what a later version says of the query: that the version's
 * windows stop at the next version's time ({@code until}) or that the query was removed ({@code
 * removedAt}), and when the key's last result is due ({@code doneAt}: the event time after which
 * nothing of the version's query can come).
 */
record Filtered(TrendResult result, PaneInfo pane, long until, long removedAt, long doneAt) {

  static Filtered result(TrendResult result, PaneInfo pane) {
    return new Filtered(result, pane, Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE);
  }

  static Filtered until(long until, long doneAt) {
    return new Filtered(null, null, until, Long.MAX_VALUE, doneAt);
  }

  static Filtered removedAt(long removedAt, long doneAt) {
    return new Filtered(null, null, Long.MAX_VALUE, removedAt, doneAt);
  }

  boolean isResult() {
    return result != null;
  }

  static final class Coder extends AtomicCoder<Filtered> {
    private static final long serialVersionUID = 1L;
    private static final Coder INSTANCE = new Coder();
    private static final int RESULT = 0;
    private static final int BOUND = 1;

    static Coder of() {
      return INSTANCE;
    }

    @Override
    public void encode(Filtered f, OutputStream out) throws IOException {
      if (f.isResult()) {
        out.write(RESULT);
        TrendResultCoder.of().encode(f.result(), out);
        PaneInfo.PaneInfoCoder.INSTANCE.encode(f.pane(), out);
      } else {
        out.write(BOUND);
        VarLongCoder.of().encode(f.until(), out);
        VarLongCoder.of().encode(f.removedAt(), out);
        VarLongCoder.of().encode(f.doneAt(), out);
      }
    }

    @Override
    public Filtered decode(InputStream in) throws IOException {
      int kind = in.read();
      if (kind == RESULT) {
        return result(TrendResultCoder.of().decode(in), PaneInfo.PaneInfoCoder.INSTANCE.decode(in));
      }
      if (kind == BOUND) {
        return new Filtered(
            null,
            null,
            VarLongCoder.of().decode(in),
            VarLongCoder.of().decode(in),
            VarLongCoder.of().decode(in));
      }
      throw new CoderException("not a result or a bound: kind " + kind);
    }
  }
}
