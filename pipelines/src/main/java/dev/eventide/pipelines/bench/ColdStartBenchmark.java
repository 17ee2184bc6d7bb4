package dev.eventide.pipelines.bench;

import dev.eventide.trends.Event;
import dev.eventide.trends.TrendEngine;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.io.EventJson;
import dev.eventide.trends.io.ResultJson;
import dev.eventide.trends.io.TextLines;
import dev.eventide.trends.query.Workload;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Where a short run's time goes ({@code eventide bench trends --cold}): a fresh JVM per measurement
 * runs what {@code eventide trends} runs — parse the query file, compile the plan, read and parse
 * the event lines, evaluate them with the results formatted as JSON lines — timing each phase of
 * its first run (cold: class loading, interpreter, JIT compiling as it goes) and of a run once it
 * is warmed up, in the same JVM. The parent also times the JVM from launch to exit.
 */
public final class ColdStartBenchmark {
  /** How long a JVM warms up before its warm run is timed. */
  private static final double WARM_SECONDS = 2;

  /** A limit on one JVM's life: a run this slow has hung. */
  private static final long JVM_LIMIT_SECONDS = 600;

  private ColdStartBenchmark() {}

  /** Milliseconds of each phase of one run. */
  public record Phases(
      double workloadMillis,
      double planMillis,
      double readMillis,
      double evaluateMillis,
      long events,
      long results,
      long digest) {
    public double totalMillis() {
      return workloadMillis + planMillis + readMillis + evaluateMillis;
    }

    String format() {
      return String.format(
          Locale.ROOT,
          "%.3f %.3f %.3f %.3f %d %d %d",
          workloadMillis,
          planMillis,
          readMillis,
          evaluateMillis,
          events,
          results,
          digest);
    }

    static Phases parse(String text) {
      String[] f = text.trim().split(" ");
      return new Phases(
          Double.parseDouble(f[0]),
          Double.parseDouble(f[1]),
          Double.parseDouble(f[2]),
          Double.parseDouble(f[3]),
          Long.parseLong(f[4]),
          Long.parseLong(f[5]),
          Long.parseLong(f[6]));
    }

    /** The phase-wise median of several runs. */
    static Phases median(List<Phases> runs) {
      return new Phases(
          TrendsBenchmark.median(runs.stream().mapToDouble(Phases::workloadMillis).toArray()),
          TrendsBenchmark.median(runs.stream().mapToDouble(Phases::planMillis).toArray()),
          TrendsBenchmark.median(runs.stream().mapToDouble(Phases::readMillis).toArray()),
          TrendsBenchmark.median(runs.stream().mapToDouble(Phases::evaluateMillis).toArray()),
          runs.get(0).events(),
          runs.get(0).results(),
          runs.get(0).digest());
    }
  }

  /**
   * An engine's medians over the fresh JVMs of one kind: the first run, the warm run, the JVM from
   * launch to exit.
   */
  public record Result(
      Engines engine, Jvm jvm, int jvms, Phases cold, Phases warm, double jvmMillis) {}

  /** Writes the events as {@code events.jsonl} and the workload as {@code queries} into dir. */
  public static void write(Path dir, List<Event> events, String workload) throws IOException {
    Files.createDirectories(dir);
    Files.write(dir.resolve("events.jsonl"), ReadingBenchmark.lines(events));
    Files.writeString(dir.resolve("queries"), workload);
  }

  /**
   * Measures an engine in {@code rounds} fresh JVMs of each kind, the kinds taking turns within a
   * round (so that the machine's drift over the measurement falls on each alike), on dir's files;
   * one result per kind, in order.
   *
   * @throws IllegalStateException if two runs, in any JVMs, give different results
   */
  public static List<Result> measure(Path dir, Engines engine, List<Jvm> kinds, int rounds) {
    List<List<Phases>> cold = new ArrayList<>();
    List<List<Phases>> warm = new ArrayList<>();
    double[][] wall = new double[kinds.size()][rounds];
    for (int k = 0; k < kinds.size(); k++) {
      cold.add(new ArrayList<>());
      warm.add(new ArrayList<>());
    }
    for (int i = 0; i < rounds; i++) {
      for (int k = 0; k < kinds.size(); k++) {
        long started = System.nanoTime();
        List<String> lines = launch(kinds.get(k), dir, engine);
        wall[k][i] = (System.nanoTime() - started) / 1e6;
        cold.get(k).add(Phases.parse(lines.get(0)));
        warm.get(k).add(Phases.parse(lines.get(1)));
      }
    }
    long digest = cold.get(0).get(0).digest();
    List<Result> results = new ArrayList<>();
    for (int k = 0; k < kinds.size(); k++) {
      for (int i = 0; i < rounds; i++) {
        if (cold.get(k).get(i).digest() != digest || warm.get(k).get(i).digest() != digest) {
          throw new IllegalStateException(
              engine.cliName()
                  + " gave different results in two runs (their digests differ; JVM "
                  + kinds.get(k).name()
                  + ")");
        }
      }
      results.add(
          new Result(
              engine,
              kinds.get(k),
              rounds,
              Phases.median(cold.get(k)),
              Phases.median(warm.get(k)),
              TrendsBenchmark.median(wall[k])));
    }
    return results;
  }

  /** The child's {@code cold} and {@code warm} lines. */
  private static List<String> launch(Jvm jvm, Path dir, Engines engine) {
    return ChildJvm.run(
        jvm,
        ColdStartBenchmark.class,
        List.of(),
        List.of(dir.toString(), engine.cliName()),
        List.of("cold ", "warm "),
        JVM_LIMIT_SECONDS);
  }

  /**
   * One run in this JVM, as eventide trends runs it; the results are formatted as JSON lines and
   * folded into a digest, which every engine's run must share.
   */
  static Phases runOnce(Path dir, Engines engine) throws IOException {
    long t0 = System.nanoTime();
    Workload workload = Workload.parse(Files.readString(dir.resolve("queries")));
    long t1 = System.nanoTime();
    long[] results = {0};
    long[] digest = {0};
    TrendEngine trends =
        engine.create(
            workload,
            r -> {
              digest[0] = digest[0] * 31 + ResultJson.format(r).hashCode();
              results[0]++;
            });
    long t2 = System.nanoTime();
    List<Event> events = new ArrayList<>();
    try (InputStream file = Files.newInputStream(dir.resolve("events.jsonl"));
        TextLines lines = TextLines.open(file)) {
      for (TextLines.Line l = lines.next(); l != null; l = lines.next()) {
        events.add(EventJson.parse(l.text(), l.number()));
      }
    }
    long t3 = System.nanoTime();
    for (Event e : events) {
      trends.process(e);
    }
    trends.finish();
    long t4 = System.nanoTime();
    return new Phases(
        (t1 - t0) / 1e6,
        (t2 - t1) / 1e6,
        (t3 - t2) / 1e6,
        (t4 - t3) / 1e6,
        events.size(),
        results[0],
        digest[0]);
  }

  /**
   * The child JVM: {@code <dir> <engine>}; prints {@code cold ...} for its first run, then, after
   * warming up for about two seconds (at least three runs), {@code warm ...} for its fastest run.
   */
  public static void main(String[] args) throws IOException {
    Path dir = Path.of(args[0]);
    Engines engine = Engines.ofCliName(args[1]);
    System.out.println("cold " + runOnce(dir, engine).format());
    long until = System.nanoTime() + (long) (WARM_SECONDS * 1e9);
    Phases best = null;
    for (int run = 0; run < 3 || System.nanoTime() < until; run++) {
      Phases p = runOnce(dir, engine);
      if (best == null || p.totalMillis() < best.totalMillis()) {
        best = p;
      }
    }
    System.out.println("warm " + best.format());
  }
}
