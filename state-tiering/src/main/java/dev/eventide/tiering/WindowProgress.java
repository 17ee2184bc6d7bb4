package dev.eventide.tiering;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.BooleanCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;

/**
 * Where one key's window stands: how many panes it has fired, how many elements it holds, whether
 * some arrived since the last pane, whether its first element came after the watermark had passed
 * the window's end (then, as in Beam, even its first pane is late), and its cleanup bound
 * (milliseconds after its end; fixed by its first element). {@code purged}: the window was purged
 * before the end of its allowed lateness (predictive cleanup), and this is all that is left of it
 * until then.
 */
record WindowProgress(
    long panes,
    long elements,
    boolean pending,
    boolean startedLate,
    long cleanupMillis,
    boolean purged) {
  static final WindowProgress EMPTY = new WindowProgress(0, 0, false, false, 0, false);

  /** After an element arrived, late or not; the first one sets the cleanup bound. */
  WindowProgress withElement(boolean late, long cleanup) {
    return elements == 0
        ? new WindowProgress(panes, 1, true, late, cleanup, false)
        : new WindowProgress(panes, elements + 1, true, startedLate, cleanupMillis, false);
  }

  /** After a pane fired. */
  WindowProgress fired() {
    return new WindowProgress(panes + 1, elements, false, startedLate, cleanupMillis, false);
  }

  /** After the window was purged before the end of its allowed lateness. */
  WindowProgress afterPurge() {
    return new WindowProgress(panes, 0, false, startedLate, cleanupMillis, true);
  }

  /** The Beam pane of the next firing. */
  PaneInfo nextPane(boolean last) {
    PaneInfo.Timing timing =
        panes == 0 && !startedLate ? PaneInfo.Timing.ON_TIME : PaneInfo.Timing.LATE;
    return PaneInfo.createPane(panes == 0, last, timing, panes, panes);
  }

  static final class Coder extends AtomicCoder<WindowProgress> {
    private static final VarLongCoder LONG = VarLongCoder.of();
    private static final BooleanCoder BOOLEAN = BooleanCoder.of();

    @Override
    public void encode(WindowProgress value, OutputStream out) throws IOException {
      LONG.encode(value.panes(), out);
      LONG.encode(value.elements(), out);
      BOOLEAN.encode(value.pending(), out);
      BOOLEAN.encode(value.startedLate(), out);
      LONG.encode(value.cleanupMillis(), out);
      BOOLEAN.encode(value.purged(), out);
    }

    @Override
    public WindowProgress decode(InputStream in) throws IOException {
      return new WindowProgress(
          LONG.decode(in),
          LONG.decode(in),
          BOOLEAN.decode(in),
          BOOLEAN.decode(in),
          LONG.decode(in),
          BOOLEAN.decode(in));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
