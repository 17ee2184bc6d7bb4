package dev.eventide.runtime.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Collection;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.NonMergingWindowFn;
import org.apache.beam.sdk.transforms.windowing.SlidingWindows;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.transforms.windowing.WindowMappingFn;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

class WindowAssignmentTest {
  private static IntervalWindow window(long start, long end) {
    return new IntervalWindow(new Instant(start), new Instant(end));
  }

  @Test
  void fixedWindowsAssignTheOneWindowHoldingTheTimestamp() {
    FixedWindows tenSeconds = FixedWindows.of(Duration.standardSeconds(10));
    assertEquals(
        List.of(window(20_000, 30_000)),
        List.copyOf(WindowAssignment.assign(tenSeconds, "a", new Instant(26_000))));
    assertEquals(
        List.of(window(-10_000, 0)),
        List.copyOf(WindowAssignment.assign(tenSeconds, "a", new Instant(-1))),
        "before the epoch");
  }

  @Test
  void slidingWindowsAssignEveryWindowHoldingTheTimestamp() {
    SlidingWindows windows =
        SlidingWindows.of(Duration.standardSeconds(30)).every(Duration.standardSeconds(10));
    Collection<IntervalWindow> assigned =
        WindowAssignment.assign(windows, "a", new Instant(26_000));
    assertEquals(3, assigned.size(), assigned.toString());
    assertTrue(assigned.contains(window(0, 30_000)), assigned.toString());
    assertTrue(assigned.contains(window(10_000, 40_000)), assigned.toString());
    assertTrue(assigned.contains(window(20_000, 50_000)), assigned.toString());
  }

  @Test
  void theElementIsInTheGlobalWindowAndItsValueReachesTheWindowFunction() {
    WindowFn<Object, IntervalWindow> byLength =
        new ProbeWindows() {
          @Override
          public Collection<IntervalWindow> assignWindows(AssignContext c) {
            assertEquals(GlobalWindow.INSTANCE, c.window());
            long length = ((String) c.element()).length();
            return List.of(window(c.timestamp().getMillis(), c.timestamp().getMillis() + length));
          }
        };
    assertEquals(
        List.of(window(7, 12)),
        List.copyOf(WindowAssignment.assign(byLength, "hello", new Instant(7))));
  }

  @Test
  void aRefusalNamesTheElementItsTimestampAndTheWindowFunction() {
    WindowFn<Object, IntervalWindow> refusing =
        new ProbeWindows() {
          @Override
          public Collection<IntervalWindow> assignWindows(AssignContext c) {
            throw new IllegalStateException("no windows for " + c.element());
          }

          @Override
          public String toString() {
            return "RefusingWindows";
          }
        };
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> WindowAssignment.assign(refusing, "x", new Instant(5)));
    assertEquals(
        "cannot assign windows to x at 1970-01-01T00:00:00.005Z with RefusingWindows",
        e.getMessage());
    assertEquals("no windows for x", e.getCause().getMessage());
  }

  /** A window function whose assignment each test writes. */
  private abstract static class ProbeWindows extends NonMergingWindowFn<Object, IntervalWindow> {
    @Override
    public boolean isCompatible(WindowFn<?, ?> other) {
      return other == this;
    }

    @Override
    public Coder<IntervalWindow> windowCoder() {
      return IntervalWindow.getCoder();
    }

    @Override
    public WindowMappingFn<IntervalWindow> getDefaultWindowMappingFn() {
      throw new UnsupportedOperationException("not a side input");
    }
  }
}
