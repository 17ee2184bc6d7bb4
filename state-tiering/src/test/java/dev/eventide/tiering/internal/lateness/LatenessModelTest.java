package dev.eventide.tiering.internal.lateness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class LatenessModelTest {

  @Test
  void theRankIsTheSmallestWhoseBinomialTailReachesTheConfidence() {
    // Against the binomial CDF summed directly (exact in doubles for small n).
    for (int n : new int[] {1, 5, 30, 60, 120}) {
      for (double q : new double[] {0.5, 0.9, 0.95}) {
        for (double c : new double[] {0.5, 0.9, 0.95}) {
          int expected = -1;
          double cdf = 0;
          for (int j = 0; j < n && expected < 0; j++) {
            cdf += choose(n, j) * Math.pow(q, j) * Math.pow(1 - q, n - j);
            if (cdf >= c - 1e-12) {
              expected = j + 1;
            }
          }
          assertEquals(
              expected, LatenessModel.upperRank(n, q, c), "n=" + n + " q=" + q + " c=" + c);
        }
      }
    }
  }

  @Test
  void aBoundNeedsEnoughObservations() {
    LatenessModel model = LatenessModel.of(60_000, 0.99, 0.95, 1_000);
    assertEquals(299, model.minimumObservations()); // 0.99^299 < 0.05 < 0.99^298
    long[] few = LongStream.range(0, 250).toArray();
    assertEquals(60_000, model.bound(few), "too few: the conservative maximum");
    long[] enough = LongStream.range(0, 400).toArray();
    long bound = model.bound(enough);
    assertTrue(bound >= 396 - 1 && bound <= 399, "about the 99th percentile of 0..399: " + bound);
  }

  @Test
  void theBoundNeverExceedsTheMaximum() {
    LatenessModel model = LatenessModel.of(1_000, 0.9, 0.9, 200);
    long[] allBeyond = LongStream.range(0, 100).map(i -> 5_000 + i).toArray();
    assertEquals(1_000, model.bound(allBeyond));
  }

  /** Lateness distributions of the kinds Aion and Eventide's generators use, in milliseconds. */
  enum Shape {
    LOG_NORMAL(r -> Math.exp(10 + r.nextGaussian())),
    UNIFORM(r -> r.nextDouble() * 1_000_000),
    NORMAL(r -> Math.max(0, 500_000 + 100_000 * r.nextGaussian())),
    BURSTS(
        r ->
            Math.max(
                0,
                r.nextBoolean()
                    ? 100_000 + 10_000 * r.nextGaussian()
                    : 800_000 + 50_000 * r.nextGaussian()));

    private final java.util.function.ToDoubleFunction<Random> draw;

    Shape(java.util.function.ToDoubleFunction<Random> draw) {
      this.draw = draw;
    }

    long next(Random random) {
      return Math.round(draw.applyAsDouble(random));
    }
  }

  /**
   * The stated confidence holds: over many seeded samples of each shape, the bound is at least the
   * true coverage quantile (from two million draws) in about {@code confidence} of them.
   */
  @ParameterizedTest
  @EnumSource(Shape.class)
  void theBoundCoversTheQuantileWithTheStatedConfidence(Shape shape) {
    double coverage = 0.99;
    double confidence = 0.95;
    LatenessModel model = LatenessModel.of(Long.MAX_VALUE / 4, coverage, confidence, 1_000);
    Random random = new Random(42 + shape.ordinal());
    long[] population = new long[2_000_000];
    for (int i = 0; i < population.length; i++) {
      population[i] = shape.next(random);
    }
    java.util.Arrays.sort(population);
    long trueQuantile = population[(int) Math.ceil(coverage * population.length) - 1];
    int trials = 1_000;
    int covered = 0;
    for (int t = 0; t < trials; t++) {
      long[] sample = new long[500];
      for (int i = 0; i < sample.length; i++) {
        sample[i] = shape.next(random);
      }
      if (model.bound(sample) >= trueQuantile) {
        covered++;
      }
    }
    double rate = covered / (double) trials;
    // Binomial(1000, >= 0.95): a rate below 0.93 is about 3 standard deviations off.
    assertTrue(
        rate >= 0.93, shape + ": covered the 99th percentile in " + rate + " of the samples");
    // And the bound is not trivially conservative: it is not the maximum.
    assertTrue(rate < 1.0, shape + ": a bound that always covers is no estimate: " + rate);
  }

  @Test
  void badSettingsAreRejectedWithTheReason() {
    assertThrows(IllegalArgumentException.class, () -> LatenessModel.of(10, 1.0, 0.95, 1_000));
    assertThrows(IllegalArgumentException.class, () -> LatenessModel.of(10, 0.99, 0, 1_000));
    assertThrows(IllegalArgumentException.class, () -> LatenessModel.of(-1, 0.99, 0.95, 1_000));
    IllegalArgumentException small =
        assertThrows(IllegalArgumentException.class, () -> LatenessModel.of(10, 0.99, 0.95, 500));
    assertTrue(small.getMessage().contains("299"), small.getMessage());
  }

  private static double choose(int n, int k) {
    double c = 1;
    for (int i = 1; i <= k; i++) {
      c = c * (n - k + i) / i;
    }
    return c;
  }
}
