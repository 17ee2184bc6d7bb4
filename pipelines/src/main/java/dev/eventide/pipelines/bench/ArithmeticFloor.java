package dev.eventide.pipelines.bench;

import dev.eventide.trends.Event;
import dev.eventide.trends.TrendEngine;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.internal.engine.WordCounts;
import dev.eventide.trends.query.Workload;
import java.util.List;
import java.util.Locale;

/**
 * The floor of a run's exact arithmetic ({@code eventide bench trends --floor}): a fresh JVM times
 * HAMLET's second run over the stream (warm, as {@code bench trends} times it); another, started
 * with word counting on, runs it again counting the 64-bit words its multiply-adds, adds and copies
 * touch, then times this machine's fastest multiply-add and add loops at the run's average operand
 * size. The words times those rates is the time the arithmetic alone needs at full speed: what
 * remains of the run is everything else (control, maps, allocation, collection, formatting).
 */
public final class ArithmeticFloor {
  private static final long JVM_LIMIT_SECONDS = 1800;
  private static final double RATE_SECONDS = 1.5;

  private ArithmeticFloor() {}

  /** One run's words, the machine's rates and the run's time. */
  public record Result(
      long events,
      double runSeconds,
      WordCounts.Counts words,
      int multiplyAddLimbs,
      int addLimbs,
      double multiplyAddNanos,
      double addNanos) {

    /** Seconds the multiply-adds and adds take at the measured rates. */
    public double floorSeconds() {
      return (words.multiplyAddWords() * multiplyAddNanos + words.addWords() * addNanos) / 1e9;
    }

    String format() {
      return String.format(
          Locale.ROOT,
          "%d %.6f %d %d %d %d %d %d %d %.6f %.6f",
          events,
          runSeconds,
          words.multiplyAddWords(),
          words.multiplyAddCalls(),
          words.addWords(),
          words.addCalls(),
          words.copyWords(),
          multiplyAddLimbs,
          addLimbs,
          multiplyAddNanos,
          addNanos);
    }

    static Result parse(String line) {
      String[] f = line.trim().split(" ");
      return new Result(
          Long.parseLong(f[0]),
          Double.parseDouble(f[1]),
          new WordCounts.Counts(
              Long.parseLong(f[2]),
              Long.parseLong(f[3]),
              Long.parseLong(f[4]),
              Long.parseLong(f[5]),
              Long.parseLong(f[6])),
          Integer.parseInt(f[7]),
          Integer.parseInt(f[8]),
          Double.parseDouble(f[9]),
          Double.parseDouble(f[10]));
    }
  }

  /**
   * Measures one setting: the run's time in a fresh JVM as every other JVM runs it (the second run,
   * warm), then the words and rates in a fresh JVM with word counting on (whose run is not timed,
   * so that the counting cannot change the time).
   */
  public static Result measure(
      TrendStreams.Kind stream, int eventsPerWindow, int windows, int queries) {
    List<String> args =
        List.of(
            stream.name(),
            String.valueOf(eventsPerWindow),
            String.valueOf(windows),
            String.valueOf(queries));
    double runSeconds =
        Double.parseDouble(
            ChildJvm.run(ArithmeticFloor.class, List.of(), args, List.of("run "), JVM_LIMIT_SECONDS)
                .get(0)
                .trim());
    Result counted =
        Result.parse(
            ChildJvm.run(
                    ArithmeticFloor.class,
                    List.of("-Deventide.trends.countWords=true"),
                    args,
                    List.of("floor "),
                    JVM_LIMIT_SECONDS)
                .get(0));
    return new Result(
        counted.events(),
        runSeconds,
        counted.words(),
        counted.multiplyAddLimbs(),
        counted.addLimbs(),
        counted.multiplyAddNanos(),
        counted.addNanos());
  }

  /**
   * The child JVM: {@code <stream> <events per window> <windows> <queries>}. Prints {@code run
   * <seconds>}; with word counting on, {@code floor ...} instead.
   */
  public static void main(String[] args) {
    TrendStreams.Kind stream = TrendStreams.Kind.valueOf(args[0]);
    int perWindow = Integer.parseInt(args[1]);
    int windows = Integer.parseInt(args[2]);
    int queries = Integer.parseInt(args[3]);
    long windowMillis = 60_000;
    Workload workload = Workload.parse(TrendStreams.workload(stream, 42, queries, windowMillis));
    List<Event> events = TrendStreams.events(stream, 42, perWindow, windows, windowMillis);
    if (!WordCounts.ENABLED) {
      // Timed as bench trends times it: after a first run has compiled the code and sized the heap.
      evaluate(workload, events);
      System.out.println(String.format(Locale.ROOT, "run %.6f", evaluate(workload, events)));
      return;
    }
    WordCounts.reset();
    double seconds = evaluate(workload, events);
    WordCounts.Counts words = WordCounts.counts();
    int multiplyAddLimbs =
        (int) Math.max(1, words.multiplyAddWords() / Math.max(1, words.multiplyAddCalls()));
    int addLimbs = (int) Math.max(1, words.addWords() / Math.max(1, words.addCalls()));
    double multiplyAddNanos = WordCounts.nanosPerWord(multiplyAddLimbs, RATE_SECONDS)[0];
    double addNanos = WordCounts.nanosPerWord(addLimbs, RATE_SECONDS)[1];
    System.out.println(
        "floor "
            + new Result(
                    events.size(),
                    seconds,
                    words,
                    multiplyAddLimbs,
                    addLimbs,
                    multiplyAddNanos,
                    addNanos)
                .format());
  }

  /** Seconds one HAMLET run over the events takes. */
  private static double evaluate(Workload workload, List<Event> events) {
    TrendEngine engine = Engines.HAMLET.create(workload, r -> {});
    long started = System.nanoTime();
    events.forEach(engine::process);
    engine.finish();
    return (System.nanoTime() - started) / 1e9;
  }
}
