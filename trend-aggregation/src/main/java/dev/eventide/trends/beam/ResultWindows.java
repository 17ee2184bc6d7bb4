package dev.eventide.trends.beam;

import dev.eventide.trends.TrendResult;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.NonMergingWindowFn;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.transforms.windowing.WindowMappingFn;
import org.joda.time.Instant;

/** Puts each {@link TrendResult} in the window it describes, {@code [windowStart, windowEnd)}. */
final class ResultWindows extends NonMergingWindowFn<TrendResult, IntervalWindow> {
  private static final long serialVersionUID = 1L;

  @Override
  public List<IntervalWindow> assignWindows(AssignContext c) {
    TrendResult r = c.element();
    return List.of(new IntervalWindow(new Instant(r.windowStart()), new Instant(r.windowEnd())));
  }

  @Override
  public boolean isCompatible(WindowFn<?, ?> other) {
    return other instanceof ResultWindows;
  }

  @Override
  public Coder<IntervalWindow> windowCoder() {
    return IntervalWindow.getCoder();
  }

  @Override
  public WindowMappingFn<IntervalWindow> getDefaultWindowMappingFn() {
    throw new UnsupportedOperationException(
        "trend results are windowed by the window they describe and cannot be a side input's"
            + " windowing; re-window them first");
  }

  @Override
  public boolean assignsToOneWindow() {
    return true;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ResultWindows;
  }

  @Override
  public int hashCode() {
    return ResultWindows.class.hashCode();
  }

  @Override
  public String toString() {
    return "ResultWindows";
  }
}
