package dev.eventide.tiering.internal.lateness;

import java.io.Serializable;
import java.util.Arrays;

/**
 * Aion's staleness trigger: when to re-execute a past window so that its results are never too
 * stale, with as few executions as that needs.
 *
 * <p>The staleness between two consecutive executions is {@code st = t·n / (T·N)}: t and n the time
 * elapsed and late values accumulated since the previous execution, T the window's cleanup bound
 * and N the late values it is expected to receive. With F the distribution of lateness (the
 * fraction of a window's late values that arrive within x of its end), an interval (a, b] after the
 * window's end has {@code st = (b − a)/T · (F(b) − F(a))}. The first interval starts at the on-time
 * execution (x = 0); the last execution is at T, when the window is purged.
 *
 * <p>{@link #plan} first places executions greedily, each as far after the previous as the bound
 * allows: since st grows with both ends of an interval, that is the fewest executions that keep
 * every interval within the bound. It then balances them: it searches (by bisection) the lowest
 * bound that the same number of executions can keep, and places them for that bound, which
 * minimises the maximum staleness for that count exactly (where Aion descends a gradient).
 *
 * <p>Times are whole milliseconds: where many late values arrive within one millisecond, an
 * interval of one millisecond may exceed the bound, and the plan then executes at every millisecond
 * there.
 *
 * <p>F is the empirical distribution of a sample of observed latenesses within [0, T] (values
 * beyond T belong to no execution: they are dead letters), or uniform when there is none. Cost: O(e
 * · log T · log s) per greedy pass for e executions over a sample of s values, about 60 passes.
 */
public final class StalenessPlanner implements Serializable {
  /** The smallest bound accepted: about 2/√bound executions at most, 200 here. */
  public static final double MINIMUM_BOUND = 1e-4;

  private final double bound;

  private StalenessPlanner(double bound) {
    this.bound = bound;
  }

  /**
   * A planner that keeps every interval's staleness at most {@code bound}.
   *
   * @throws IllegalArgumentException unless {@value #MINIMUM_BOUND} ≤ bound ≤ 1
   */
  public static StalenessPlanner of(double bound) {
    if (!(bound >= MINIMUM_BOUND && bound <= 1)) {
      throw new IllegalArgumentException(
          "the staleness bound must be in [" + MINIMUM_BOUND + ", 1], but was " + bound);
    }
    return new StalenessPlanner(bound);
  }

  public double bound() {
    return bound;
  }

  /**
   * The execution times after a window's end, in milliseconds, ascending; the last is {@code
   * cleanupMillis}. Empty when the cleanup bound is 0 (the window is purged at its end).
   *
   * @param latenessMillis a sample of observed latenesses (not changed)
   */
  public long[] plan(long cleanupMillis, long[] latenessMillis) {
    if (cleanupMillis <= 0) {
      return new long[0];
    }
    Distribution f = Distribution.of(cleanupMillis, latenessMillis);
    return balanced(f, greedy(f, bound).length, bound);
  }

  /**
   * The plan of {@code executions} executions (the last at {@code cleanupMillis}) whose largest
   * staleness is the lowest any such plan has: what {@link #plan} balances to, for a given count.
   */
  public static long[] planWithExecutions(
      int executions, long cleanupMillis, long[] latenessMillis) {
    if (executions < 1 || cleanupMillis <= 0) {
      throw new IllegalArgumentException(
          "a plan needs executions >= 1 and a cleanup bound > 0, but was "
              + executions
              + " and "
              + cleanupMillis);
    }
    return balanced(Distribution.of(cleanupMillis, latenessMillis), executions, 1);
  }

  /** Bisection: the lowest bound that {@code count} executions keep, and their plan for it. */
  private static long[] balanced(Distribution f, int count, double high) {
    double low = 0;
    for (int i = 0; i < 60 && high - low > 1e-12; i++) {
      double mid = (low + high) / 2;
      if (countWithin(f, mid, count) <= count) {
        high = mid;
      } else {
        low = mid;
      }
    }
    return greedy(f, high);
  }

  /** The largest staleness of any interval of a plan, for the same distribution. */
  public static double maxStaleness(long[] plan, long cleanupMillis, long[] latenessMillis) {
    Distribution f = Distribution.of(cleanupMillis, latenessMillis);
    double max = 0;
    long previous = 0;
    for (long x : plan) {
      max = Math.max(max, f.staleness(previous, x));
      previous = x;
    }
    return max;
  }

  /** The staleness of the interval (a, b] after a window's end. */
  public static double staleness(long a, long b, long cleanupMillis, long[] latenessMillis) {
    return Distribution.of(cleanupMillis, latenessMillis).staleness(a, b);
  }

  private static long[] greedy(Distribution f, double bound) {
    long[] plan = new long[8];
    int size = 0;
    long x = 0;
    while (x < f.cleanup) {
      x = furthest(f, x, bound);
      if (size == plan.length) {
        plan = Arrays.copyOf(plan, size * 2);
      }
      plan[size++] = x;
    }
    return Arrays.copyOf(plan, size);
  }

  /** How many executions the greedy placement needs for a bound, counting no further than limit. */
  private static int countWithin(Distribution f, double bound, int limit) {
    int count = 0;
    long x = 0;
    while (x < f.cleanup && count <= limit) {
      x = furthest(f, x, bound);
      count++;
    }
    return count;
  }

  /**
   * The furthest y in (x, T] with st(x, y) ≤ bound; x + 1 when none is: many values in one
   * millisecond can make a bound unreachable at millisecond resolution.
   */
  private static long furthest(Distribution f, long x, double bound) {
    // Relative slack, so that a bound met exactly is not missed by rounding.
    double within = bound * (1 + 1e-9);
    long lo = x + 1;
    long hi = f.cleanup;
    if (f.staleness(x, hi) <= within) {
      return hi;
    }
    while (lo < hi) {
      long mid = lo + (hi - lo + 1) / 2;
      if (f.staleness(x, mid) <= within) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /** F over [0, T]: empirical over the sample's values within it, or uniform. */
  private static final class Distribution {
    final long cleanup;
    final long[] sorted;

    private Distribution(long cleanup, long[] sorted) {
      this.cleanup = cleanup;
      this.sorted = sorted;
    }

    static Distribution of(long cleanup, long[] sample) {
      if (cleanup <= 0) {
        throw new IllegalArgumentException("the cleanup bound must be > 0, but was " + cleanup);
      }
      long[] within = Arrays.stream(sample).filter(x -> x >= 0 && x <= cleanup).sorted().toArray();
      return new Distribution(cleanup, within);
    }

    /** The fraction of late values that arrive no later than x after the window's end. */
    double cdf(long x) {
      if (sorted.length == 0) {
        return Math.min(1.0, Math.max(0, x) / (double) cleanup);
      }
      int i = Arrays.binarySearch(sorted, x);
      if (i < 0) {
        i = -i - 1;
      } else {
        while (i < sorted.length && sorted[i] == x) {
          i++;
        }
      }
      return i / (double) sorted.length;
    }

    double staleness(long a, long b) {
      return (b - a) / (double) cleanup * (cdf(b) - cdf(a));
    }
  }
}
