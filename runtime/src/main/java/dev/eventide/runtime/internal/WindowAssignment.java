package dev.eventide.runtime.internal;

import java.util.Collection;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.joda.time.Instant;

/**
 * The windows a {@link WindowFn} assigns an element, asked outside Beam's {@code Window} transform:
 * by a step that keys values by their window while they stay in the global window ({@code
 * TieredWindow}), or by a test stream that must know a value's windows before the pipeline runs.
 * Internal to Eventide's modules.
 */
public final class WindowAssignment {
  private WindowAssignment() {}

  /**
   * The windows {@code windowFn} assigns {@code element} at {@code timestamp}, the element being in
   * the global window (where every element is before its first {@code Window.into}).
   *
   * @throws IllegalArgumentException if the window function refuses the element, with the element,
   *     its timestamp and the window function
   */
  @SuppressWarnings("unchecked")
  public static <W extends BoundedWindow> Collection<W> assign(
      WindowFn<?, W> windowFn, Object element, Instant timestamp) {
    WindowFn<Object, W> windows = (WindowFn<Object, W>) windowFn;
    try {
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
              return GlobalWindow.INSTANCE;
            }
          });
    } catch (Exception e) {
      throw new IllegalArgumentException(
          "cannot assign windows to " + element + " at " + timestamp + " with " + windowFn, e);
    }
  }
}
