package dev.eventide.tiering;

import dev.eventide.runtime.internal.WindowAssignment;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.values.KV;
import org.joda.time.Instant;

/**
 * Keys each value by its key and each of its windows, in the global window, with the allowed
 * lateness as the window's cleanup bound: {@link TieredWindowDoFn} then keeps a window's state
 * under its own key in the global window, where Beam sets no cleanup timer that would hold the
 * watermark at the window's end until the window expires. Each goes out timestamped at its window's
 * end ({@link Admitted} says why).
 */
final class KeyByWindow<K, V> extends DoFn<KV<K, V>, KV<KV<K, BoundedWindow>, Admitted<V>>> {
  private final WindowFn<?, ?> windowFn;
  private final long allowedLatenessMillis;

  KeyByWindow(WindowFn<? super KV<K, V>, ?> windowFn, long allowedLatenessMillis) {
    this.windowFn = windowFn;
    this.allowedLatenessMillis = allowedLatenessMillis;
  }

  @ProcessElement
  public void process(
      @Element KV<K, V> element,
      @Timestamp Instant timestamp,
      OutputReceiver<KV<KV<K, BoundedWindow>, Admitted<V>>> out) {
    Admitted<V> admitted =
        new Admitted<>(element.getValue(), timestamp.getMillis(), allowedLatenessMillis, 0);
    for (BoundedWindow window : WindowAssignment.assign(windowFn, element, timestamp)) {
      out.outputWithTimestamp(
          KV.of(KV.of(element.getKey(), window), admitted), window.maxTimestamp());
    }
  }
}
