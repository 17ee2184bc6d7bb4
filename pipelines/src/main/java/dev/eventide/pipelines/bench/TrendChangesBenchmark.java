package dev.eventide.pipelines.bench;

import dev.eventide.trends.Event;
import dev.eventide.trends.TrendEngine;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.engine.ChangeableTrendEngine;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.query.Workload;
import dev.eventide.trends.query.WorkloadChange;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * What changing a running workload costs the in-process HAMLET engine ({@code eventide bench trends
 * --changes}): the time one change takes to apply to an engine of k queries, and events/s over a
 * stream while one query is added and removed in turn every N events, against the same workload
 * fixed and against stopping the engine and starting a new one at every change (which loses the
 * open windows: their results are cut short). Results of the queries no change touches must be
 * identical with and without the changes (a digest is compared).
 */
public final class TrendChangesBenchmark {
  private TrendChangesBenchmark() {}

  /** The median time of adding one query to, and of removing it from, an engine of k queries. */
  public record ApplyTime(int queries, double addMillis, double removeMillis) {}

  /** How a stream was run. */
  public enum Mode {
    FIXED,
    CHANGED,
    RESTARTED
  }

  /**
   * One run.
   *
   * @param untouchedDigest a digest of the results of the queries no change touches
   */
  public record Run(
      Mode mode,
      int queries,
      int changeEvery,
      long events,
      long changes,
      double seconds,
      long results,
      long untouchedDigest) {
    public double eventsPerSecond() {
      return events / seconds;
    }
  }

  /**
   * Times {@code repeats} additions and removals of one query on an engine of {@code queries}
   * queries that has evaluated {@code warmup} (its states and windows open), and returns the
   * medians.
   */
  public static ApplyTime applyTime(
      TrendStreams.Kind kind, int queries, List<Event> warmup, long windowMillis, int repeats) {
    Texts texts = Texts.of(kind, queries, windowMillis);
    String extra = texts.extra();
    String extraName = texts.extraName();
    ChangeableTrendEngine engine = Engines.HAMLET.createChangeable(texts.initial(), r -> {});
    warmup.forEach(engine::process);
    long time = warmup.get(warmup.size() - 1).time();
    double[] adds = new double[repeats];
    double[] removes = new double[repeats];
    for (int i = 0; i < repeats; i++) {
      long started = System.nanoTime();
      engine.change(WorkloadChange.add(++time, extra));
      adds[i] = (System.nanoTime() - started) / 1e6;
      started = System.nanoTime();
      engine.change(WorkloadChange.remove(++time, extraName));
      removes[i] = (System.nanoTime() - started) / 1e6;
    }
    return new ApplyTime(queries, median(adds), median(removes));
  }

  /**
   * Runs the stream in one mode: {@code queries} queries, and (unless FIXED) one more added and
   * removed in turn before every {@code changeEvery}-th event (at the first later time).
   */
  public static Run run(
      Mode mode,
      TrendStreams.Kind kind,
      int queries,
      int changeEvery,
      List<Event> events,
      long windowMillis) {
    Texts texts = Texts.of(kind, queries, windowMillis);
    Workload initial = texts.initial();
    long[] results = {0};
    long[] digest = {17};
    Consumer<TrendResult> sink =
        r -> {
          results[0]++;
          if (!r.query().equals(texts.extraName())) {
            digest[0] = digest[0] * 31 + r.hashCode();
          }
        };
    Workload current = initial;
    TrendEngine engine =
        mode == Mode.CHANGED
            ? Engines.HAMLET.createChangeable(initial, sink)
            : Engines.HAMLET.create(initial, sink);
    long changes = 0;
    long last = Long.MIN_VALUE;
    boolean due = false;
    long started = System.nanoTime();
    for (int i = 0; i < events.size(); i++) {
      Event e = events.get(i);
      due |= mode != Mode.FIXED && i > 0 && i % changeEvery == 0;
      if (due && e.time() > last) {
        WorkloadChange change =
            changes % 2 == 0
                ? WorkloadChange.add(e.time(), texts.extra())
                : WorkloadChange.remove(e.time(), texts.extraName());
        if (mode == Mode.CHANGED) {
          ((ChangeableTrendEngine) engine).change(change);
        } else {
          // A job stopped and started again with the new workload: its open windows end here.
          engine.finish();
          current = change.applyTo(current);
          engine = Engines.HAMLET.create(current, sink);
        }
        changes++;
        due = false;
      }
      engine.process(e);
      last = e.time();
    }
    engine.finish();
    double seconds = (System.nanoTime() - started) / 1e9;
    return new Run(
        mode, queries, changeEvery, events.size(), changes, seconds, results[0], digest[0]);
  }

  /** The workload's text and, apart, the text of its last query: the one added and removed. */
  private record Texts(Workload initial, String extra, String extraName) {
    static Texts of(TrendStreams.Kind kind, int queries, long windowMillis) {
      String[] blocks = TrendStreams.workload(kind, 1, queries + 1, windowMillis).split("\n\n");
      Workload initial =
          Workload.parse(String.join("\n\n", Arrays.asList(blocks).subList(0, queries)));
      String extra = blocks[queries];
      return new Texts(initial, extra, Workload.parse(extra).queries().get(0).name());
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
