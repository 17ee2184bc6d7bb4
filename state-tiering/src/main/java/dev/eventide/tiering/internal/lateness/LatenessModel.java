package dev.eventide.tiering.internal.lateness;

import java.io.Serializable;
import java.util.Arrays;

/**
 * Predictive cleanup (Aion, "Permanently deleting window state"): from how late values have come,
 * the cleanup bound after which a new window's state can be deleted, so that a target fraction of
 * late values still falls inside it.
 *
 * <p>The bound is an order-statistic upper confidence bound on the {@code coverage} quantile of the
 * lateness distribution: over a sample of n observed latenesses sorted as x(1) ≤ ... ≤ x(n), it is
 * x(k) for the smallest k with P(Binomial(n, coverage) ≤ k − 1) ≥ {@code confidence}. For
 * independent observations of a continuous distribution, x(k) is then at least the true quantile
 * with probability at least {@code confidence}, whatever the distribution: no shape is assumed.
 * With fewer observations than {@link #minimumObservations()} no such k exists and the bound stays
 * at the conservative maximum (the allowed lateness); it never exceeds that maximum.
 *
 * <p>The sample is what the caller keeps: Eventide keeps the most recent observations (between half
 * of {@link #sampleSize()} and all of it), so the bound follows a drifting distribution. It must
 * include values that came later than the bound in force, or the estimate only ever shrinks.
 */
public final class LatenessModel implements Serializable {
  /** The fraction of late values a bound should cover unless told otherwise. */
  public static final double DEFAULT_COVERAGE = 0.99;

  /** The confidence that it does, unless told otherwise. */
  public static final double DEFAULT_CONFIDENCE = 0.95;

  /** The number of recent observations the bound is estimated from, unless told otherwise. */
  public static final int DEFAULT_SAMPLE_SIZE = 1_000;

  private final long maximumMillis;
  private final double coverage;
  private final double confidence;
  private final int sampleSize;
  private final int minimumObservations;

  private LatenessModel(long maximumMillis, double coverage, double confidence, int sampleSize) {
    this.maximumMillis = maximumMillis;
    this.coverage = coverage;
    this.confidence = confidence;
    this.sampleSize = sampleSize;
    this.minimumObservations = minimumObservations(coverage, confidence);
  }

  /**
   * A model whose bound never exceeds {@code maximumMillis} (the allowed lateness).
   *
   * @throws IllegalArgumentException if coverage or confidence is not strictly between 0 and 1, or
   *     the sample cannot hold the observations a bound needs
   */
  public static LatenessModel of(
      long maximumMillis, double coverage, double confidence, int sampleSize) {
    if (maximumMillis < 0) {
      throw new IllegalArgumentException(
          "the maximum bound must be >= 0, but was " + maximumMillis);
    }
    if (!(coverage > 0 && coverage < 1)) {
      throw new IllegalArgumentException("coverage must be in (0, 1), but was " + coverage);
    }
    if (!(confidence > 0 && confidence < 1)) {
      throw new IllegalArgumentException("confidence must be in (0, 1), but was " + confidence);
    }
    int needed = minimumObservations(coverage, confidence);
    if (sampleSize / 2 < needed) {
      throw new IllegalArgumentException(
          "a coverage of "
              + coverage
              + " with confidence "
              + confidence
              + " needs at least "
              + needed
              + " observations, so the sample (of which half is kept when it rolls over) must hold "
              + 2 * needed
              + ", but it holds "
              + sampleSize);
    }
    return new LatenessModel(maximumMillis, coverage, confidence, sampleSize);
  }

  public long maximumMillis() {
    return maximumMillis;
  }

  public double coverage() {
    return coverage;
  }

  public double confidence() {
    return confidence;
  }

  public int sampleSize() {
    return sampleSize;
  }

  /** The fewest observations that give a bound below the maximum: 1 − coverageⁿ ≥ confidence. */
  public int minimumObservations() {
    return minimumObservations;
  }

  /**
   * The cleanup bound for new windows from a sample of observed latenesses (milliseconds after a
   * window's end; the array is not changed): the upper confidence bound of the coverage quantile,
   * capped at the maximum, or the maximum when the sample is too small.
   */
  public long bound(long[] latenessMillis) {
    int k = upperRank(latenessMillis.length, coverage, confidence);
    if (k < 0) {
      return maximumMillis;
    }
    long[] sorted = latenessMillis.clone();
    Arrays.sort(sorted);
    return Math.max(0, Math.min(maximumMillis, sorted[k - 1]));
  }

  /**
   * The smallest rank k in 1..n with P(Binomial(n, q) ≤ k − 1) ≥ confidence, or -1 if even k = n
   * falls short. Summed in log space: the terms underflow a double for n in the thousands.
   */
  static int upperRank(int n, double q, double confidence) {
    if (n == 0) {
      return -1;
    }
    double logQ = Math.log(q);
    double logNotQ = Math.log1p(-q);
    double logChoose = 0; // log C(n, j)
    double cdf = 0;
    for (int j = 0; j < n; j++) {
      if (j > 0) {
        logChoose += Math.log(n - j + 1) - Math.log(j);
      }
      cdf += Math.exp(logChoose + j * logQ + (n - j) * logNotQ);
      // cdf = P(Bin ≤ j): rank k = j + 1 bounds the quantile with that probability.
      if (cdf >= confidence) {
        return j + 1;
      }
    }
    return -1;
  }

  private static int minimumObservations(double coverage, double confidence) {
    return (int) Math.ceil(Math.log1p(-confidence) / Math.log(coverage) - 1e-9);
  }

  @Override
  public String toString() {
    return "LatenessModel{coverage="
        + coverage
        + ", confidence="
        + confidence
        + ", maximum="
        + maximumMillis
        + " ms, sample="
        + sampleSize
        + "}";
  }
}
