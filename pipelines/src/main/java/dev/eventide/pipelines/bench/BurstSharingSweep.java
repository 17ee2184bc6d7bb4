package dev.eventide.pipelines.bench;

import dev.eventide.trends.Event;
import dev.eventide.trends.TrendEngine;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.query.Workload;
import java.util.ArrayList;
import java.util.List;

/**
 * Where sharing a burst pays: HAMLET dynamic, HAMLET static and the unshared executor on a stream
 * of fixed-length bursts read by a class of identical queries, per burst length and class size. The
 * stream repeats a start event and {@code burst} Kleene events at distinct times; every query is
 * {@code SEQ(S, T+)} with {@code COUNT(*)}, so all queries accept every event and form one class.
 * Short windows keep the counts small (a few words); long ones let them grow to thousands of bits.
 * The engines run in turn, each round starting with another one, after a collection; the fastest
 * run of each counts, and dynamic against static is the median of their ratios per round.
 */
public final class BurstSharingSweep {

  /**
   * One setting's measurement, in nanoseconds per burst (a start event and its burst). {@code
   * dynamicOverStatic} is how many times faster dynamic is than static (below 1: slower): the
   * median over the rounds of static's time over dynamic's in the same round, which cancels the
   * machine's drift between rounds better than a ratio of the fastest runs.
   */
  public record Result(
      int burst,
      int queries,
      int burstsPerWindow,
      double dynamicNanos,
      double staticNanos,
      double unsharedNanos,
      long sharedBursts,
      long bursts,
      double dynamicOverStatic) {}

  private static final List<Engines> ENGINES =
      List.of(Engines.HAMLET, Engines.HAMLET_STATIC, Engines.UNSHARED);

  private BurstSharingSweep() {}

  /**
   * Measures one setting over {@code events} events, each engine {@code rounds} times in turn after
   * one unmeasured run each.
   */
  public static Result measure(
      int burst, int queries, int burstsPerWindow, int events, int rounds) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < queries; i++) {
      text.append("QUERY q")
          .append(i)
          .append("\nRETURN COUNT(*)\nPATTERN SEQ(S, T+)\nWITHIN ")
          .append((long) burstsPerWindow * (burst + 1))
          .append(" ms\n\n");
    }
    Workload workload = Workload.parse(text.toString());
    int cycles = Math.max(1, events / (burst + 1));
    List<Event> stream = new ArrayList<>(cycles * (burst + 1));
    long time = 0;
    for (int c = 0; c < cycles; c++) {
      stream.add(Event.of("S", time++, "x", 1));
      for (int j = 0; j < burst; j++) {
        stream.add(Event.of("T", time++, "x", 1));
      }
    }
    double[] best = {Double.MAX_VALUE, Double.MAX_VALUE, Double.MAX_VALUE};
    double[] roundNanos = new double[ENGINES.size()];
    double[] ratios = new double[rounds];
    long[] digests = new long[ENGINES.size()];
    long shared = 0;
    long bursts = 0;
    for (int round = 0; round <= rounds; round++) {
      for (int turn = 0; turn < ENGINES.size(); turn++) {
        // Each round starts with another engine, so that none always runs after the same one.
        int e = (turn + round) % ENGINES.size();
        System.gc();
        long[] digest = {0};
        TrendEngine engine =
            ENGINES.get(e).create(workload, r -> digest[0] = digest[0] * 31 + r.value().hashCode());
        long started = System.nanoTime();
        for (Event event : stream) {
          engine.process(event);
        }
        engine.finish();
        double nanos = (System.nanoTime() - started) / (double) cycles;
        if (round > 0) {
          best[e] = Math.min(best[e], nanos);
          roundNanos[e] = nanos;
        }
        digests[e] = digest[0];
        if (e == 0) {
          shared = engine.statistics().getOrDefault("sharedBursts", 0L);
          bursts = engine.statistics().getOrDefault("bursts", 0L);
        }
      }
      if (round > 0) {
        ratios[round - 1] = roundNanos[1] / roundNanos[0];
      }
    }
    double median = TrendsBenchmark.median(ratios);
    if (digests[0] != digests[1] || digests[0] != digests[2]) {
      throw new IllegalStateException(
          "engines disagree at burst " + burst + ", " + queries + " queries");
    }
    return new Result(
        burst, queries, burstsPerWindow, best[0], best[1], best[2], shared, bursts, median);
  }
}
