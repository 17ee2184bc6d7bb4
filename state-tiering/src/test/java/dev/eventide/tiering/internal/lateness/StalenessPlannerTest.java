package dev.eventide.tiering.internal.lateness;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

class StalenessPlannerTest {

  /**
   * Against every set of execution times on a small horizon: the plan uses the fewest executions
   * that keep every interval within the bound, and no plan of that many has a lower maximum.
   */
  @Test
  void fewestExecutionsThenTheLowestMaximumAgainstBruteForce() {
    Random random = new Random(7);
    for (int c = 0; c < 300; c++) {
      long cleanup = 2 + random.nextInt(13);
      long[] sample = new long[random.nextInt(12)];
      for (int i = 0; i < sample.length; i++) {
        // Skewed towards the window's end, with some beyond the bound.
        sample[i] = 1 + (long) (cleanup * 1.2 * Math.pow(random.nextDouble(), 2));
      }
      double bound = 0.005 + random.nextDouble() * 0.3;
      long[] plan = StalenessPlanner.of(bound).plan(cleanup, sample);
      String where =
          "T=" + cleanup + " bound=" + bound + " sample=" + java.util.Arrays.toString(sample);

      assertEquals(cleanup, plan[plan.length - 1], "the last execution is at the bound: " + where);
      for (int i = 1; i < plan.length; i++) {
        assertTrue(plan[i] > plan[i - 1], "ascending: " + where);
      }
      double max = StalenessPlanner.maxStaleness(plan, cleanup, sample);
      assertTrue(feasible(plan, cleanup, sample, bound), "within the bound: " + where);

      int fewest = Integer.MAX_VALUE;
      double bestMax = Double.MAX_VALUE;
      // Every subset of 1..T-1 as the executions before the last one at T.
      for (long mask = 0; mask < 1L << (cleanup - 1); mask++) {
        long[] candidate = new long[Long.bitCount(mask) + 1];
        int n = 0;
        for (int x = 1; x < cleanup; x++) {
          if ((mask & 1L << (x - 1)) != 0) {
            candidate[n++] = x;
          }
        }
        candidate[n] = cleanup;
        if (feasible(candidate, cleanup, sample, bound)) {
          fewest = Math.min(fewest, candidate.length);
        }
      }
      for (long mask = 0; mask < 1L << (cleanup - 1); mask++) {
        if (Long.bitCount(mask) + 1 != plan.length) {
          continue;
        }
        long[] candidate = new long[plan.length];
        int n = 0;
        for (int x = 1; x < cleanup; x++) {
          if ((mask & 1L << (x - 1)) != 0) {
            candidate[n++] = x;
          }
        }
        candidate[n] = cleanup;
        bestMax = Math.min(bestMax, StalenessPlanner.maxStaleness(candidate, cleanup, sample));
      }
      assertEquals(fewest, plan.length, "fewest executions: " + where);
      assertEquals(bestMax, max, 1e-9, "lowest maximum for that count: " + where);
    }
  }

  /**
   * Every interval within the bound, or one millisecond long (where many values arrive within one
   * millisecond, no plan at millisecond resolution does better).
   */
  private static boolean feasible(long[] plan, long cleanup, long[] sample, double bound) {
    long previous = 0;
    for (long x : plan) {
      if (x - previous > 1
          && StalenessPlanner.staleness(previous, x, cleanup, sample) > bound + 1e-12) {
        return false;
      }
      previous = x;
    }
    return true;
  }

  @Test
  void aUniformDistributionGetsEvenlySpacedExecutions() {
    // st = (Δ/T)² for uniform arrivals: a bound of 0.01 needs ten executions, a tenth apart.
    long[] plan = StalenessPlanner.of(0.01).plan(1_000, new long[0]);
    assertArrayEquals(new long[] {100, 200, 300, 400, 500, 600, 700, 800, 900, 1_000}, plan);
  }

  @Test
  void executionsGatherWhereLateValuesDo() {
    // Most late values within the first tenth: most executions there too.
    Random random = new Random(3);
    long[] sample = new long[1_000];
    for (int i = 0; i < sample.length; i++) {
      sample[i] = (long) Math.exp(Math.log(10_000) + random.nextGaussian());
    }
    long[] plan = StalenessPlanner.of(0.01).plan(600_000, sample);
    long early = java.util.Arrays.stream(plan).filter(x -> x <= 60_000).count();
    assertTrue(early * 2 > plan.length, java.util.Arrays.toString(plan));
  }

  @Test
  void aZeroCleanupBoundNeedsNoExecution() {
    assertEquals(0, StalenessPlanner.of(0.1).plan(0, new long[] {1, 2}).length);
  }

  @Test
  void boundsOutsideTheRangeAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> StalenessPlanner.of(0));
    assertThrows(IllegalArgumentException.class, () -> StalenessPlanner.of(1.5));
    assertThrows(IllegalArgumentException.class, () -> StalenessPlanner.of(Double.NaN));
  }
}
