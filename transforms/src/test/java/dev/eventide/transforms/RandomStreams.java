package dev.eventide.transforms;

import dev.eventide.testing.streams.EventTimeStream;
import dev.eventide.transforms.primitives.WindowSpec;
import java.util.Random;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Seeded random event-time streams of small integers, for differential tests: few distinct values
 * and few distinct milliseconds, so identical tuples meet; out-of-order events; empty stretches;
 * and, when asked, events late within and beyond the allowed lateness of δ windows.
 */
public final class RandomStreams {
  private RandomStreams() {}

  public static EventTimeStream<Integer> stream(
      long seed, Duration lateness, boolean withLateData) {
    Random random = new Random(seed);
    EventTimeStream<Integer> s =
        EventTimeStream.of(VarIntCoder.of())
            .withWindowing(FixedWindows.of(WindowSpec.DELTA), lateness);
    long watermark = 0;
    s.advanceWatermarkTo(new Instant(watermark));
    int steps = 5 + random.nextInt(15);
    for (int step = 0; step < steps; step++) {
      // Mostly a handful of milliseconds just ahead of the watermark; values skewed towards 0.
      int events = random.nextInt(12);
      for (int i = 0; i < events; i++) {
        long t = watermark + random.nextInt(4);
        int value = random.nextInt(random.nextBoolean() ? 3 : 20);
        s.onTime(value, new Instant(t));
      }
      if (withLateData && watermark > 0) {
        for (int i = random.nextInt(4); i > 0; i--) {
          long age = 1 + random.nextInt((int) Math.min(watermark, lateness.getMillis() * 2 + 3));
          Instant t = new Instant(watermark - age);
          int value = random.nextInt(5);
          // δ window [t, t+1) expires once t + L is before the watermark.
          if (t.plus(lateness).isBefore(new Instant(watermark))) {
            s.lateBeyondLateness(value, t);
          } else {
            s.lateWithinLateness(value, t);
          }
        }
      }
      watermark += 1 + random.nextInt(5);
      s.advanceWatermarkTo(new Instant(watermark));
    }
    return s;
  }
}
