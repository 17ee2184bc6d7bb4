package dev.eventide.pipelines.bench;

import dev.eventide.tiering.internal.lateness.LatenessModel;
import dev.eventide.tiering.internal.lateness.StalenessPlanner;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.ToLongFunction;

/**
 * Aion's experiment Q4: the staleness trigger ({@link StalenessPlanner}) against a periodic trigger
 * (Δt: executions evenly spaced in time) and a count trigger (Δe: an execution every N/m expected
 * late values), over late-arrival distributions. Each plan is made from a learning sample and
 * judged on a held-out sample of the same distribution (what would really arrive), by the largest
 * staleness {@code t·n/(T·N)} between consecutive executions.
 */
public final class StalenessBenchmark {

  /** A distribution of lateness over a cleanup bound T, in milliseconds. */
  public enum Lateness {
    UNIFORM("unif", (r, t) -> 1 + (long) (r.nextDouble() * t)),
    EXPONENTIAL("exp", (r, t) -> 1 + (long) (-Math.log(1 - r.nextDouble()) * t / 10)),
    LOG_NORMAL("lnorm", (r, t) -> 1 + (long) Math.exp(Math.log(t / 20.0) + gaussian(r))),
    PARETO("pareto", (r, t) -> 1 + (long) (t / 100.0 * Math.pow(1 - r.nextDouble(), -1 / 1.5)));

    private final String label;
    private final Draw draw;

    Lateness(String label, Draw draw) {
      this.label = label;
      this.draw = draw;
    }

    public String label() {
      return label;
    }

    /** {@code n} draws, some of them later than T (for the heavy tails). */
    long[] uncut(int n, long cleanupMillis, long seed) {
      SplittableRandom random = new SplittableRandom(seed);
      long[] sample = new long[n];
      for (int i = 0; i < n; i++) {
        sample[i] = draw.next(random, cleanupMillis);
      }
      return sample;
    }

    /** {@code n} draws within (0, T], seeded. */
    long[] sample(int n, long cleanupMillis, long seed) {
      SplittableRandom random = new SplittableRandom(seed);
      long[] sample = new long[n];
      for (int i = 0; i < n; ) {
        long x = draw.next(random, cleanupMillis);
        if (x <= cleanupMillis) {
          sample[i++] = x;
        }
      }
      return sample;
    }

    private static double gaussian(SplittableRandom r) {
      // Box-Muller: SplittableRandom has no nextGaussian.
      return Math.sqrt(-2 * Math.log(1 - r.nextDouble())) * Math.cos(2 * Math.PI * r.nextDouble());
    }
  }

  private interface Draw {
    long next(SplittableRandom random, long cleanupMillis);
  }

  /** A trigger: its plan of {@code executions} executions from the learning sample. */
  public enum Trigger {
    AION("aion"),
    DELTA_T("deltat"),
    DELTA_E("deltae");

    private final String label;

    Trigger(String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }

    long[] plan(int executions, long cleanupMillis, long[] learning) {
      return switch (this) {
        case AION -> StalenessPlanner.planWithExecutions(executions, cleanupMillis, learning);
        case DELTA_T -> evenly(executions, i -> cleanupMillis * i / executions);
        case DELTA_E -> {
          long[] sorted = learning.clone();
          Arrays.sort(sorted);
          yield evenly(
              executions,
              i ->
                  i == executions
                      ? cleanupMillis
                      : sorted[(int) ((long) sorted.length * i / executions) - 1]);
        }
      };
    }

    private static long[] evenly(int executions, ToLongFunction<Integer> at) {
      long[] plan = new long[executions];
      for (int i = 1; i <= executions; i++) {
        plan[i - 1] = at.applyAsLong(i);
      }
      return Arrays.stream(plan).distinct().toArray();
    }
  }

  /** The largest staleness of one trigger's plan of {@code executions}, on the held-out sample. */
  public record Point(Lateness lateness, Trigger trigger, int executions, double maxStaleness) {}

  /** The fewest executions with which a trigger keeps a bound, or -1 beyond the limit. */
  public record Fewest(Lateness lateness, Trigger trigger, double bound, int executions) {}

  /**
   * Predictive cleanup against the fixed bound (the allowed lateness T) over a run of windows: the
   * fraction of late values within their window's bound, and how long window state is kept after
   * the window's end, relative to T.
   */
  public record Cleanup(
      Lateness lateness, double fixedCoverage, double predictedCoverage, double keptShare) {}

  private final long cleanupMillis;
  private final int learningSize;
  private final int heldOutSize;
  private final long seed;

  public StalenessBenchmark(long cleanupMillis, int learningSize, int heldOutSize, long seed) {
    if (cleanupMillis < 1000 || learningSize < 10 || heldOutSize < 10) {
      throw new IllegalArgumentException(
          "the cleanup bound must be >= 1000 ms and both samples >= 10 values");
    }
    this.cleanupMillis = cleanupMillis;
    this.learningSize = learningSize;
    this.heldOutSize = heldOutSize;
    this.seed = seed;
  }

  /** Max staleness for 1..maxExecutions executions, per distribution and trigger. */
  public List<Point> curve(List<Lateness> distributions, int maxExecutions) {
    List<Point> points = new ArrayList<>();
    for (Lateness lateness : distributions) {
      long[] learning = lateness.sample(learningSize, cleanupMillis, seed);
      long[] heldOut = lateness.sample(heldOutSize, cleanupMillis, seed + 1);
      for (Trigger trigger : Trigger.values()) {
        for (int m = 1; m <= maxExecutions; m++) {
          long[] plan = trigger.plan(m, cleanupMillis, learning);
          points.add(
              new Point(
                  lateness,
                  trigger,
                  m,
                  StalenessPlanner.maxStaleness(plan, cleanupMillis, heldOut)));
        }
      }
    }
    return points;
  }

  /** The fewest executions (at most {@code limit}) that keep each bound, judged held out. */
  public List<Fewest> fewest(List<Lateness> distributions, List<Double> bounds, int limit) {
    List<Fewest> rows = new ArrayList<>();
    for (Lateness lateness : distributions) {
      long[] learning = lateness.sample(learningSize, cleanupMillis, seed);
      long[] heldOut = lateness.sample(heldOutSize, cleanupMillis, seed + 1);
      for (double bound : bounds) {
        for (Trigger trigger : Trigger.values()) {
          int found = -1;
          for (int m = 1; m <= limit && found < 0; m++) {
            long[] plan = trigger.plan(m, cleanupMillis, learning);
            if (StalenessPlanner.maxStaleness(plan, cleanupMillis, heldOut) <= bound) {
              found = m;
            }
          }
          rows.add(new Fewest(lateness, trigger, bound, found));
        }
      }
    }
    return rows;
  }

  /**
   * Simulates predictive cleanup as {@code TieredWindow} runs it for one key: windows one after
   * another, each with {@code lateValues} late values; a window's bound is the model's bound when
   * it is created, over the most recent observations (two generations of half the sample); then its
   * late values are observed. The first windows, before the model has spoken, count too.
   */
  public List<Cleanup> cleanup(
      List<Lateness> distributions,
      double coverage,
      double confidence,
      int windows,
      int lateValues) {
    List<Cleanup> rows = new ArrayList<>();
    for (Lateness lateness : distributions) {
      LatenessModel model =
          LatenessModel.of(cleanupMillis, coverage, confidence, LatenessModel.DEFAULT_SAMPLE_SIZE);
      long[] all = lateness.uncut(windows * lateValues, cleanupMillis, seed);
      List<Long> previous = new ArrayList<>();
      List<Long> current = new ArrayList<>();
      long withinFixed = 0;
      long withinPredicted = 0;
      double kept = 0;
      for (int w = 0; w < windows; w++) {
        long[] sample = new long[previous.size() + current.size()];
        int n = 0;
        for (long x : previous) {
          sample[n++] = x;
        }
        for (long x : current) {
          sample[n++] = x;
        }
        long bound = model.bound(sample);
        kept += bound / (double) cleanupMillis;
        for (int i = 0; i < lateValues; i++) {
          long x = all[w * lateValues + i];
          withinFixed += x <= cleanupMillis ? 1 : 0;
          withinPredicted += x <= bound ? 1 : 0;
          current.add(x);
          if (current.size() >= model.sampleSize() / 2) {
            previous = current;
            current = new ArrayList<>();
          }
        }
      }
      double values = (double) windows * lateValues;
      rows.add(
          new Cleanup(lateness, withinFixed / values, withinPredicted / values, kept / windows));
    }
    return rows;
  }

  /** Coverage of the fixed and the predicted bound, and the state kept with the predicted one. */
  public static void printCleanup(List<Cleanup> rows, PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "%-7s %14s %18s %18s%n",
        "dist",
        "fixed covers",
        "predicted covers",
        "state kept vs T");
    for (Cleanup r : rows) {
      out.printf(
          Locale.ROOT,
          "%-7s %13.2f%% %17.2f%% %17.1f%%%n",
          r.lateness().label(),
          100 * r.fixedCoverage(),
          100 * r.predictedCoverage(),
          100 * r.keptShare());
    }
    out.flush();
  }

  /** The curve as a table: one row per distribution and count, with Δt/aion and Δe/aion. */
  public static void printCurve(List<Point> points, PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "%-7s %5s %10s %10s %10s %9s %9s%n",
        "dist",
        "execs",
        "aion",
        "deltat",
        "deltae",
        "Δt/aion",
        "Δe/aion");
    for (int i = 0; i + 2 < points.size(); i++) {
      Point a = points.get(i);
      if (a.trigger() != Trigger.AION) {
        continue;
      }
      Point t = find(points, a.lateness(), Trigger.DELTA_T, a.executions());
      Point e = find(points, a.lateness(), Trigger.DELTA_E, a.executions());
      out.printf(
          Locale.ROOT,
          "%-7s %5d %10.5f %10.5f %10.5f %9.2f %9.2f%n",
          a.lateness().label(),
          a.executions(),
          a.maxStaleness(),
          t.maxStaleness(),
          e.maxStaleness(),
          t.maxStaleness() / a.maxStaleness(),
          e.maxStaleness() / a.maxStaleness());
    }
    out.flush();
  }

  /** The fewest executions per bound, and Aion's share of the other triggers'. */
  public static void printFewest(List<Fewest> rows, int limit, PrintWriter out) {
    out.printf(
        Locale.ROOT,
        "%-7s %7s %6s %7s %7s %12s %12s%n",
        "dist",
        "bound",
        "aion",
        "deltat",
        "deltae",
        "aion/deltat",
        "aion/deltae");
    for (Fewest a : rows) {
      if (a.trigger() != Trigger.AION) {
        continue;
      }
      int t = find(rows, a, Trigger.DELTA_T);
      int e = find(rows, a, Trigger.DELTA_E);
      out.printf(
          Locale.ROOT,
          "%-7s %7.3f %6s %7s %7s %12s %12s%n",
          a.lateness().label(),
          a.bound(),
          count(a.executions(), limit),
          count(t, limit),
          count(e, limit),
          share(a.executions(), t),
          share(a.executions(), e));
    }
    out.flush();
  }

  private static String count(int executions, int limit) {
    return executions < 0 ? ">" + limit : Integer.toString(executions);
  }

  private static String share(int aion, int other) {
    if (aion < 0 || other < 0) {
      return "-";
    }
    return String.format(Locale.ROOT, "%.0f%%", 100.0 * aion / other);
  }

  private static Point find(List<Point> points, Lateness lateness, Trigger trigger, int m) {
    return points.stream()
        .filter(p -> p.lateness() == lateness && p.trigger() == trigger && p.executions() == m)
        .findFirst()
        .orElseThrow();
  }

  private static int find(List<Fewest> rows, Fewest like, Trigger trigger) {
    return rows.stream()
        .filter(
            r ->
                r.lateness() == like.lateness()
                    && r.bound() == like.bound()
                    && r.trigger() == trigger)
        .findFirst()
        .orElseThrow()
        .executions();
  }
}
