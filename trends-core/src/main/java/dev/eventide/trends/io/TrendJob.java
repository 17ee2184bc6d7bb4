package dev.eventide.trends.io;

import dev.eventide.trends.Event;
import dev.eventide.trends.TrendEngine;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.engine.ChangeableTrendEngine;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.query.Workload;
import dev.eventide.trends.query.WorkloadChange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.Consumer;

/**
 * Runs a workload over a JSON-lines event file and writes JSON-lines results: what {@code eventide
 * trends} does. Events are evaluated as they are read, so memory is bounded by the open windows and
 * the allowed disorder, not by the file: events may be out of time order by at most {@link
 * Options#maxDelayMillis()} (they wait in a buffer and leave it sorted, stable for equal times); an
 * event further out of order stops the run with its line ({@link EventOrderException}), unless
 * {@link Options#sort()} reads and sorts the whole file first. A bad event line stops the job with
 * its line number, or, given a dead-letter writer, is written there with the reason and counted.
 *
 * <pre>{@code
 * try (TextLines in = TextLines.open(Files.newInputStream(Path.of("events.jsonl")));
 *     Writer results = Files.newBufferedWriter(Path.of("results.jsonl"));
 *     Writer bad = Files.newBufferedWriter(Path.of("bad-lines.jsonl"))) {
 *   TrendJob.Summary summary =
 *       TrendJob.run(workload, Engines.HAMLET, in, results, bad, TrendJob.Options.inTimeOrder());
 *   System.out.println(summary.events() + " events, " + summary.results() + " results");
 * }
 * }</pre>
 */
public final class TrendJob {

  /** What a run did. */
  public record Summary(
      long events, long badEvents, long results, long millis, Map<String, Long> statistics) {}

  /** Progress of a long run, reported every {@link Options#progressEveryMillis()}. */
  public record Progress(long eventsRead, long windowsClosed, double eventsPerSecond) {}

  /**
   * How a run treats the order of the file, and where its progress goes.
   *
   * @param maxDelayMillis how far (in event time) an event may come after a later one; 0: the file
   *     must be in time order
   * @param sort read the whole file and sort it before evaluating (memory grows with the file)
   * @param progress receives progress reports (may be a no-op)
   */
  public record Options(
      long maxDelayMillis, boolean sort, Consumer<Progress> progress, long progressEveryMillis) {
    public Options {
      if (maxDelayMillis < 0) {
        throw new IllegalArgumentException(
            "maxDelayMillis must be >= 0, but was " + maxDelayMillis);
      }
      if (progressEveryMillis <= 0) {
        throw new IllegalArgumentException(
            "progressEveryMillis must be > 0, but was " + progressEveryMillis);
      }
    }

    /** Events in time order, no progress reports. */
    public static Options inTimeOrder() {
      return new Options(0, false, p -> {}, Long.MAX_VALUE);
    }

    public Options withMaxDelay(long millis) {
      return new Options(millis, sort, progress, progressEveryMillis);
    }

    public Options sorted() {
      return new Options(maxDelayMillis, true, progress, progressEveryMillis);
    }

    public Options withProgress(Consumer<Progress> progress, long everyMillis) {
      return new Options(maxDelayMillis, sort, progress, everyMillis);
    }
  }

  private TrendJob() {}

  /**
   * Runs the job.
   *
   * @param deadLetter where bad event lines go, or null to fail on the first
   * @throws BadEventException for the first bad line when there is no dead-letter writer
   * @throws EventOrderException for the first line further out of order than the options allow
   */
  public static Summary run(
      Workload workload,
      Engines engine,
      TextLines events,
      Writer out,
      Writer deadLetter,
      Options options) {
    return run(workload, List.of(), engine, events, out, deadLetter, options);
  }

  /**
   * Runs the job while the workload changes: each change applies before the first event at or after
   * its time (docs/trends-query-language.md, "Changing the workload"), and an event is checked
   * against the workloads whose windows may hold it. A change that does not apply to the workload
   * in force at its time stops the job before any event is read, or, given a dead-letter writer, is
   * written there with the reason ({@code {"change":{...},"reason":...}}), counted in the
   * statistics as {@code refusedWorkloadChanges}, and left out.
   *
   * @param deadLetter where bad event lines and refused changes go, or null to fail on the first
   * @throws BadChangeException for the first change refused when there is no dead-letter writer
   * @throws BadEventException for the first bad line when there is no dead-letter writer
   * @throws EventOrderException for the first line further out of order than the options allow
   * @throws UnsupportedOperationException given changes and an engine of fixed workloads (greta)
   */
  public static Summary run(
      Workload workload,
      List<WorkloadChange> changes,
      Engines engine,
      TextLines events,
      Writer out,
      Writer deadLetter,
      Options options) {
    long[] refused = {0};
    WorkloadVersions schema =
        WorkloadVersions.of(
            workload,
            changes,
            bad -> {
              if (deadLetter == null) {
                throw bad;
              }
              refused[0]++;
              try {
                deadLetter.write(DeadLetter.format(bad));
                deadLetter.write('\n');
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    long[] results = {0};
    Consumer<TrendResult> sink =
        r -> {
          try {
            out.write(ResultJson.format(r));
            out.write('\n');
            results[0]++;
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        };
    TrendEngine trends =
        changes.isEmpty()
            ? engine.create(workload, sink)
            : new Changing(engine.createChangeable(workload, sink), schema.accepted());
    Reorder reorder = new Reorder(options.maxDelayMillis(), trends);
    List<Event> all = options.sort() ? new ArrayList<>() : null;
    long started = System.nanoTime();
    long nextReport = started + options.progressEveryMillis() * 1_000_000;
    long read = 0;
    long bad = 0;
    try {
      for (TextLines.Line line = events.next(); line != null; line = events.next()) {
        long lineNumber = line.number();
        if (line.isValid() && line.text().isBlank()) {
          continue;
        }
        Event e;
        try {
          e = parseEvent(line, schema);
        } catch (BadEventException failure) {
          if (deadLetter == null) {
            throw failure;
          }
          bad++;
          deadLetter.write(DeadLetter.format(failure, line.text()));
          deadLetter.write('\n');
          continue;
        }
        read++;
        if (all != null) {
          all.add(e);
        } else {
          reorder.add(e, lineNumber);
        }
        if ((read & 1023) == 0 && System.nanoTime() >= nextReport) {
          report(options, trends, read, started);
          nextReport = System.nanoTime() + options.progressEveryMillis() * 1_000_000;
        }
      }
      if (all != null) {
        all.sort(Comparator.comparingLong(Event::time));
        all.forEach(trends::process);
      } else {
        reorder.drain();
      }
      trends.finish();
      long millis = (System.nanoTime() - started) / 1_000_000;
      out.flush();
      if (deadLetter != null) {
        deadLetter.flush();
      }
      Map<String, Long> statistics = new java.util.LinkedHashMap<>(trends.statistics());
      if (refused[0] > 0) {
        statistics.put("refusedWorkloadChanges", refused[0]);
      }
      return new Summary(read, bad, results[0], millis, statistics);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void report(Options options, TrendEngine trends, long read, long started) {
    double seconds = (System.nanoTime() - started) / 1e9;
    long windows = trends.statistics().getOrDefault("windowsClosed", 0L);
    options.progress().accept(new Progress(read, windows, read / Math.max(seconds, 1e-9)));
  }

  /**
   * The events of the last {@code maxDelay} of event time, released in time order (stable) once no
   * allowed event can come before them.
   */
  private static final class Reorder {
    private record Pending(Event event, long sequence) {}

    private final long maxDelay;
    private final TrendEngine trends;
    private final PriorityQueue<Pending> buffer =
        new PriorityQueue<>(
            Comparator.comparingLong((Pending p) -> p.event().time())
                .thenComparingLong(Pending::sequence));
    private long newest = Long.MIN_VALUE;
    private long released = Long.MIN_VALUE;
    private long sequence;

    Reorder(long maxDelay, TrendEngine trends) {
      this.maxDelay = maxDelay;
      this.trends = trends;
    }

    void add(Event e, long line) {
      long bound = newest - maxDelay < newest ? newest - maxDelay : Long.MIN_VALUE;
      if (e.time() < bound || e.time() < released) {
        long late = newest - e.time();
        throw new EventOrderException(
            line,
            "event at time "
                + e.time()
                + " comes "
                + late
                + " ms after an event at time "
                + newest
                + ", more than the allowed delay of "
                + maxDelay
                + " ms; allow more with --max-delay, or read the whole file with --sort");
      }
      newest = Math.max(newest, e.time());
      if (maxDelay == 0 && buffer.isEmpty()) {
        released = e.time();
        trends.process(e);
        return;
      }
      buffer.add(new Pending(e, sequence++));
      // Every later event has time >= newest − maxDelay: what is not later than that may go.
      bound = newest - maxDelay < newest ? newest - maxDelay : Long.MIN_VALUE;
      while (!buffer.isEmpty() && buffer.peek().event().time() <= bound) {
        Event next = buffer.poll().event();
        released = next.time();
        trends.process(next);
      }
    }

    void drain() {
      while (!buffer.isEmpty()) {
        trends.process(buffer.poll().event());
      }
    }
  }

  /**
   * Parses an event line and checks it against the workload's schema.
   *
   * @throws BadEventException with the line number and what is wrong, also for a line that is not
   *     valid UTF-8 or too long
   */
  public static Event parseEvent(TextLines.Line line, EventSchema schema) {
    return parseEvent(line, schema::reads, schema::problemWith);
  }

  /**
   * Parses an event line and checks it against the workloads whose windows may hold it.
   *
   * @throws BadEventException with the line number and what is wrong
   */
  public static Event parseEvent(TextLines.Line line, WorkloadVersions schema) {
    return parseEvent(line, schema::reads, schema::problemWith);
  }

  private static Event parseEvent(
      TextLines.Line line,
      java.util.function.Predicate<String> reads,
      java.util.function.Function<Event, String> problemWith) {
    if (!line.isValid()) {
      throw new BadEventException(line.number(), line.problem());
    }
    Event e = EventJson.parse(line.text(), line.number(), reads);
    String problem = problemWith.apply(e);
    if (problem != null) {
      throw new BadEventException(line.number(), problem);
    }
    return e;
  }

  /** The dead-letter line of a bad event line: its number, the reason and the line itself. */
  public static String deadLetterLine(BadEventException e, String line) {
    return DeadLetter.format(e, line);
  }

  /** The dead-letter line of a refused workload change: the change and the reason. */
  public static String deadLetterLine(BadChangeException e) {
    return DeadLetter.format(e);
  }

  /** Applies each change before the first event at or after its time. */
  private static final class Changing implements TrendEngine {
    private final ChangeableTrendEngine engine;
    private final List<WorkloadChange> changes;
    private int next;

    Changing(ChangeableTrendEngine engine, List<WorkloadChange> changes) {
      this.engine = engine;
      this.changes = changes;
    }

    @Override
    public void process(Event e) {
      applyUpTo(e.time());
      engine.process(e);
    }

    @Override
    public void finish() {
      applyUpTo(Long.MAX_VALUE);
      engine.finish();
    }

    @Override
    public Map<String, Long> statistics() {
      return engine.statistics();
    }

    private void applyUpTo(long time) {
      while (next < changes.size() && changes.get(next).time() <= time) {
        engine.change(changes.get(next++));
      }
    }
  }

  /** A dead-letter line: the line number, the reason and the original line. */
  static final class DeadLetter {
    private static final com.fasterxml.jackson.databind.ObjectMapper MAPPER =
        new com.fasterxml.jackson.databind.ObjectMapper();

    private DeadLetter() {}

    static String format(BadEventException e, String line) {
      return MAPPER
          .createObjectNode()
          .put("line", e.line())
          .put("reason", e.reason())
          .put("event", line)
          .toString();
    }

    static String format(BadChangeException e) {
      com.fasterxml.jackson.databind.node.ObjectNode line = MAPPER.createObjectNode();
      try {
        line.set("change", MAPPER.readTree(WorkloadChangeJson.format(e.change())));
      } catch (com.fasterxml.jackson.core.JsonProcessingException impossible) {
        throw new IllegalStateException(impossible);
      }
      return line.put("reason", e.reason()).toString();
    }
  }
}
