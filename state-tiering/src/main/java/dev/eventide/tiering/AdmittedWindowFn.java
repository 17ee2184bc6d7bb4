package dev.eventide.tiering;

import java.util.Collection;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.NonMergingWindowFn;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.transforms.windowing.WindowMappingFn;
import org.apache.beam.sdk.values.KV;
import org.joda.time.Instant;

/** The user's windows for {@link Admitted} values: assigns each as its plain key and value. */
final class AdmittedWindowFn<K, V, W extends BoundedWindow>
    extends NonMergingWindowFn<KV<K, Admitted<V>>, W> {
  private final WindowFn<Object, W> windows;

  @SuppressWarnings("unchecked")
  AdmittedWindowFn(WindowFn<? super KV<K, V>, W> windows) {
    this.windows = (WindowFn<Object, W>) windows;
  }

  @Override
  public Collection<W> assignWindows(AssignContext c) throws Exception {
    KV<K, V> plain = KV.of(c.element().getKey(), c.element().getValue().value());
    return assign(windows, plain, c.timestamp(), c.window());
  }

  /**
   * The windows {@code windows} assigns {@code element} at {@code timestamp} from {@code window}.
   */
  static <W extends BoundedWindow> Collection<W> assign(
      WindowFn<Object, W> windows, Object element, Instant timestamp, BoundedWindow window)
      throws Exception {
    return windows.assignWindows(
        windows.new AssignContext() {
          @Override
          public Object element() {
            return element;
          }

          @Override
          public Instant timestamp() {
            return timestamp;
          }

          @Override
          public BoundedWindow window() {
            return window;
          }
        });
  }

  @Override
  public boolean isCompatible(WindowFn<?, ?> other) {
    return other instanceof AdmittedWindowFn<?, ?, ?> a && windows.isCompatible(a.windows);
  }

  @Override
  public Coder<W> windowCoder() {
    return windows.windowCoder();
  }

  @Override
  public WindowMappingFn<W> getDefaultWindowMappingFn() {
    return windows.getDefaultWindowMappingFn();
  }

  @Override
  public boolean assignsToOneWindow() {
    return windows.assignsToOneWindow();
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    windows.populateDisplayData(builder);
  }
}
