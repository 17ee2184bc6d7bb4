package dev.eventide.pipelines.bench;

import dev.eventide.trends.Event;
import dev.eventide.trends.TrendEngine;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.query.Workload;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs the trend engines side by side on the same workload and stream: events/s, milliseconds per
 * window (elapsed, and the measuring thread's CPU time), peak heap (the largest heap in use after a
 * collection during the run, or after a collection at the end of the stream, before the last
 * windows close), and a digest of the results that must be equal across engines. A run that exceeds
 * its time budget stops early and is reported as such (its throughput is then an upper bound: the
 * cost per event only grows within a window).
 */
public final class TrendsBenchmark {

  /** One engine's measurement. */
  public record Result(
      TrendStreams.Kind stream,
      int eventsPerWindow,
      int queries,
      Engines engine,
      long events,
      double seconds,
      double cpuSeconds,
      int windows,
      boolean finished,
      long resultDigest,
      Map<String, Long> statistics,
      long peakHeapBytes,
      double speedupOverStatic) {

    public double eventsPerSecond() {
      return events / seconds;
    }

    public double millisPerWindow() {
      return seconds * 1000 / windows;
    }

    /**
     * The measuring thread's CPU time per window: less exposed than {@link #millisPerWindow} to
     * what else a shared machine runs (collections run on other threads and are not in it).
     */
    public double cpuMillisPerWindow() {
      return cpuSeconds * 1000 / windows;
    }

    /**
     * How many times faster than {@link Engines#HAMLET_STATIC} this engine ran, paired per round:
     * the median over the rounds of static's CPU time over this engine's in the same round, which
     * cancels the drift of a shared machine between rounds better than a ratio of the fastest runs.
     * NaN when static was not measured with it, or either did not finish a round.
     */
    public double speedupOverStatic() {
      return speedupOverStatic;
    }

    Result pairedWithStatic(double speedup) {
      return new Result(
          stream,
          eventsPerWindow,
          queries,
          engine,
          events,
          seconds,
          cpuSeconds,
          windows,
          finished,
          resultDigest,
          statistics,
          peakHeapBytes,
          speedup);
    }
  }

  /** A cap on the extra rounds of settings that run for less than the minimum time. */
  private static final int MAX_ROUNDS = 200;

  /** The largest heap in use after a collection since the current run started. */
  private static final AtomicLong PEAK_HEAP = new AtomicLong();

  static {
    HeapAfterGc.watch(used -> PEAK_HEAP.accumulateAndGet(used, Math::max));
  }

  private TrendsBenchmark() {}

  /** Measures one engine; {@code budgetSeconds} caps the run. */
  public static Result run(
      TrendStreams.Kind stream,
      int eventsPerWindow,
      int queries,
      Engines engine,
      Workload workload,
      List<Event> events,
      int windows,
      double budgetSeconds) {
    long[] digest = {0};
    TrendEngine trends =
        engine.create(
            workload,
            (TrendResult r) ->
                digest[0] =
                    digest[0] * 31
                        + (r.query() + r.group() + r.windowStart() + r.value()).hashCode());
    PEAK_HEAP.set(0);
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long cpuStarted = threads.getCurrentThreadCpuTime();
    long started = System.nanoTime();
    long budget = (long) (budgetSeconds * 1e9);
    long paused = 0;
    long processed = 0;
    boolean finished = true;
    for (Event e : events) {
      trends.process(e);
      processed++;
      if ((processed & 255) == 0 && System.nanoTime() - started > budget) {
        finished = false;
        break;
      }
    }
    // The live state at the end of the stream (all windows still open), outside the clock.
    long pauseStarted = System.nanoTime();
    long cpuPauseStarted = threads.getCurrentThreadCpuTime();
    System.gc();
    long endHeap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    paused += System.nanoTime() - pauseStarted;
    long cpuPaused = threads.getCurrentThreadCpuTime() - cpuPauseStarted;
    if (finished) {
      trends.finish();
    }
    double seconds = (System.nanoTime() - started - paused) / 1e9;
    double cpuSeconds = (threads.getCurrentThreadCpuTime() - cpuStarted - cpuPaused) / 1e9;
    double windowsDone = finished ? windows : Math.max(1, processed * windows / events.size());
    return new Result(
        stream,
        eventsPerWindow,
        queries,
        engine,
        processed,
        seconds,
        cpuSeconds,
        (int) Math.ceil(windowsDone),
        finished,
        digest[0],
        trends.statistics(),
        Math.max(PEAK_HEAP.get(), endHeap),
        Double.NaN);
  }

  /**
   * Runs every engine on one setting. Every engine first runs on the same input for at least the
   * warm-up time (each run capped at a quarter of the budget), so that their code is compiled by
   * the JIT. Then the engines are measured in turn, once per round, each round starting with
   * another engine: {@code rounds} rounds, and more while an engine has taken less than {@code
   * minMeasuredSeconds} in all, collections included (a run of a few milliseconds is at the mercy
   * of the machine's noise), as long as it stays within its budget. The fastest run of each counts:
   * interleaving puts every engine under the same drift of a shared, noisy machine, and the fastest
   * run is the one least disturbed. Each result also gets its speed-up over HAMLET static paired
   * per round ({@link Result#speedupOverStatic}), when static is among the engines.
   */
  public static List<Result> compare(
      TrendStreams.Kind stream,
      int eventsPerWindow,
      int queries,
      List<Engines> engines,
      int windows,
      double warmupSeconds,
      double budgetSeconds,
      int rounds,
      double minMeasuredSeconds) {
    long windowMillis = 60_000;
    Workload workload = Workload.parse(TrendStreams.workload(stream, 42, queries, windowMillis));
    List<Event> events = TrendStreams.events(stream, 42, eventsPerWindow, windows, windowMillis);
    // Warm every engine before measuring any: they share code, so the JIT would otherwise favour
    // the engines measured last.
    for (Engines engine : engines) {
      long warmUntil = System.nanoTime() + (long) (warmupSeconds * 1e9);
      do {
        run(stream, eventsPerWindow, queries, engine, workload, events, windows, budgetSeconds / 4);
      } while (System.nanoTime() < warmUntil);
    }
    Result[] best = new Result[engines.size()];
    List<double[]> cpuPerRound = new ArrayList<>(); // NaN: not run or not finished that round
    double[] spent = new double[engines.size()];
    double[] wall = new double[engines.size()]; // with the collections around each run
    for (int round = 0; round < MAX_ROUNDS; round++) {
      boolean measured = false;
      double[] cpu = new double[engines.size()];
      Arrays.fill(cpu, Double.NaN);
      cpuPerRound.add(cpu);
      for (int turn = 0; turn < engines.size(); turn++) {
        // Each round starts with another engine: the first run after a round's start is not
        // always the same engine's.
        int i = (turn + round) % engines.size();
        boolean more =
            best[i] == null
                || (best[i].finished()
                    && spent[i] < budgetSeconds
                    && (round < rounds || wall[i] < minMeasuredSeconds));
        if (!more) {
          continue;
        }
        measured = true;
        long started = System.nanoTime();
        System.gc(); // start each measured run without the previous run's garbage
        Result r =
            run(
                stream,
                eventsPerWindow,
                queries,
                engines.get(i),
                workload,
                events,
                windows,
                budgetSeconds);
        if (r.finished()) {
          cpu[i] = r.cpuSeconds();
        }
        spent[i] += r.seconds();
        wall[i] += (System.nanoTime() - started) / 1e9;
        if (best[i] == null || (r.finished() && r.seconds() < best[i].seconds())) {
          best[i] = r;
        }
      }
      if (!measured) {
        break;
      }
    }
    int reference = engines.indexOf(Engines.HAMLET_STATIC);
    List<Result> results = new ArrayList<>();
    for (int i = 0; i < best.length; i++) {
      results.add(
          reference < 0
              ? best[i]
              : best[i].pairedWithStatic(pairedSpeedup(cpuPerRound, reference, i)));
    }
    return results;
  }

  /** The median over rounds of the reference's time over engine {@code i}'s in the same round. */
  static double pairedSpeedup(List<double[]> cpuPerRound, int reference, int i) {
    return median(
        cpuPerRound.stream()
            .filter(c -> !Double.isNaN(c[reference]) && !Double.isNaN(c[i]) && c[i] > 0)
            .mapToDouble(c -> c[reference] / c[i])
            .toArray());
  }

  /** The median of the values (the mean of the middle two for an even count); NaN if none. */
  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    if (n == 0) {
      return Double.NaN;
    }
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }
}
