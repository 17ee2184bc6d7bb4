package dev.eventide.pipelines.bench;

import dev.eventide.trends.Event;
import dev.eventide.trends.TrendEngine;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.internal.engine.WordCounts;
import dev.eventide.trends.query.Workload;
import java.util.List;
import java.util.Locale;

/**
 * The floor of a run's exact arithmetic ({@code eventide bench trends --floor}): a JVM started with
 * word counting on evaluates the stream with HAMLET once, counting the 64-bit words its
 * multiply-adds, adds and copies touch, then times this machine's fastest multiply-add and add
 * loops at the run's average operand size. The words times those rates is the time the arithmetic
 * alone needs at full speed: what remains of the run is everything else (control, maps, allocation,
 * collection, formatting).
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

  /** Measures one setting in a fresh JVM with word counting on. */
  public static Result measure(
      TrendStreams.Kind stream, int eventsPerWindow, int windows, int queries) {
    List<String> lines =
        ChildJvm.run(
            ArithmeticFloor.class,
            List.of("-Deventide.trends.countWords=true"),
            List.of(
                stream.name(),
                String.valueOf(eventsPerWindow),
                String.valueOf(windows),
                String.valueOf(queries)),
            List.of("floor "),
            JVM_LIMIT_SECONDS);
    return Result.parse(lines.get(0));
  }

  /** The child JVM: {@code <stream> <events per window> <windows> <queries>}. */
  public static void main(String[] args) {
    if (!WordCounts.ENABLED) {
      throw new IllegalStateException("start this JVM with -Deventide.trends.countWords=true");
    }
    TrendStreams.Kind stream = TrendStreams.Kind.valueOf(args[0]);
    int perWindow = Integer.parseInt(args[1]);
    int windows = Integer.parseInt(args[2]);
    int queries = Integer.parseInt(args[3]);
    long windowMillis = 60_000;
    Workload workload = Workload.parse(TrendStreams.workload(stream, 42, queries, windowMillis));
    List<Event> events = TrendStreams.events(stream, 42, perWindow, windows, windowMillis);
    TrendEngine engine = Engines.HAMLET.create(workload, r -> {});
    WordCounts.reset();
    long started = System.nanoTime();
    events.forEach(engine::process);
    engine.finish();
    double seconds = (System.nanoTime() - started) / 1e9;
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
}
