package dev.eventide.tiering.internal.io;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PrestagePlannerTest {
  private static final long MS = 1_000_000;

  @Test
  void startsAtOnceUntilItKnowsThePeriodAndTheStagingTime() {
    PrestagePlanner planner = new PrestagePlanner();
    assertEquals(0, planner.delayNanos(3, 0));
    planner.observeWatermark(1_000, 0);
    planner.observeWatermark(2_000, 200 * MS); // one period of 200 ms
    assertEquals(0, planner.delayNanos(3, 210 * MS), "no staging time measured yet");
    planner.observeStaging(2, 20 * MS); // 10 ms a block
    // Next advance expected at 400 ms; 3 blocks take 30 ms, twice that for safety: start at 340.
    assertEquals(130 * MS, planner.delayNanos(3, 210 * MS));
    // Too late to wait: at once.
    assertEquals(0, planner.delayNanos(3, 390 * MS));
  }

  @Test
  void learnsMovingAveragesAndIgnoresIdleGapsAndRepeatedWatermarks() {
    PrestagePlanner planner = new PrestagePlanner();
    planner.observeStaging(1, 10 * MS);
    planner.observeWatermark(1_000, 0);
    planner.observeWatermark(1_000, 50 * MS); // not an advance
    planner.observeWatermark(2_000, 100 * MS); // period 100
    planner.observeWatermark(3_000, 100 * MS + PrestagePlanner.MAX_PERIOD_NANOS); // idle: ignored
    planner.observeWatermark(4_000, 300 * MS + PrestagePlanner.MAX_PERIOD_NANOS); // 200: avg 120
    long last = 300 * MS + PrestagePlanner.MAX_PERIOD_NANOS;
    // expected firing at last + 120 ms; 1 block: 2 × 10 ms ahead
    assertEquals(100 * MS, planner.delayNanos(1, last));
    planner.observeStaging(1, 60 * MS); // staging average 0.8 × 10 + 0.2 × 60 = 20 ms
    assertEquals(80 * MS, planner.delayNanos(1, last));
  }
}
