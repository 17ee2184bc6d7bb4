package dev.eventide.pipelines.cli;

import dev.eventide.pipelines.trends.TrendPipeline;
import dev.eventide.trends.Event;
import dev.eventide.trends.Sharing;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.io.BadChangeException;
import dev.eventide.trends.io.BadEventException;
import dev.eventide.trends.io.EventOrderException;
import dev.eventide.trends.io.TextLines;
import dev.eventide.trends.io.TrendJob;
import dev.eventide.trends.io.WorkloadChangeJson;
import dev.eventide.trends.io.WorkloadVersions;
import dev.eventide.trends.query.QueryException;
import dev.eventide.trends.query.Workload;
import dev.eventide.trends.query.WorkloadChange;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.options.PipelineOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code eventide trends}: evaluates a workload of trend aggregation queries over an event file
 * with one of the core engines (no Beam pipeline involved).
 */
@Command(
    name = "trends",
    mixinStandardHelpOptions = true,
    versionProvider = EventideCli.Version.class,
    description = {
      "Aggregates Kleene-pattern event trends for a workload of queries (HAMLET).",
      "Events: UTF-8 JSON lines, one object each {\"type\":..,\"time\":<epoch ms>,<attributes>},"
          + " attributes strings or numbers within a double's range, in time order (or out of"
          + " order by at most --max-delay; --sort reads and sorts the whole file). A line that is"
          + " not such an event is bad: it stops the run, or goes to --dead-letter."
          + " Results: JSON lines {\"query\",\"group\",\"window_start\",\"window_end\",\"value\"}.",
      "Events are evaluated as they are read: memory is bounded by the open windows and"
          + " --max-delay, not by the file. A long run prints its progress on stderr.",
      "With --runner (or --flink-master, --parallelism, --config) the workload runs as a Beam"
          + " pipeline on"
          + " TrendAggregate instead: events in any order, results sorted, the same values.",
      "Exit codes: 0 done, 1 a bad event line (without --dead-letter), an event out of order"
          + " beyond --max-delay, a failed pipeline or an I/O failure, 2 bad usage or a bad query"
          + " file."
    },
    footer = {"", DurationConverter.HELP})
final class TrendsCommand implements Callable<Integer> {
  private static final long PROGRESS_EVERY_MILLIS = 5_000;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--queries",
      required = true,
      paramLabel = "FILE",
      description = "The query file (QUERY ... RETURN ... PATTERN ... WITHIN ...).")
  Path queries;

  @Option(
      names = "--events",
      required = true,
      paramLabel = "FILE|-",
      description = "The event file (or a pipe, e.g. <(zcat events.gz)), or - for standard input.")
  String events;

  @Option(
      names = "--out",
      defaultValue = "-",
      paramLabel = "FILE|-",
      description = "Where results go, - for standard output (default: ${DEFAULT-VALUE}).")
  String out;

  @Option(
      names = "--engine",
      defaultValue = "hamlet",
      paramLabel = "ENGINE",
      description =
          "hamlet (dynamic sharing), hamlet-static, unshared (running sums, no sharing) or greta"
              + " (per-edge baseline) (default: ${DEFAULT-VALUE}).")
  String engine;

  @Option(
      names = "--max-delay",
      defaultValue = "0ms",
      converter = DurationConverter.class,
      paramLabel = "DURATION",
      description =
          "How far in event time an event may come after a later one (250ms, 10s, 5m, 2h, 1d);"
              + " such events wait in a buffer of that span (default: ${DEFAULT-VALUE}: in time"
              + " order).")
  org.joda.time.Duration maxDelay;

  @Option(
      names = "--sort",
      description =
          "Read the whole event file and sort it by time before evaluating it: any order, but"
              + " memory grows with the file.")
  boolean sort;

  @Mixin RunnerOptions runner;

  @Option(
      names = "--allowed-lateness",
      defaultValue = "0ms",
      converter = DurationConverter.class,
      paramLabel = "DURATION",
      description =
          "With a runner: how long after its end a window accepts late events (default:"
              + " ${DEFAULT-VALUE}).")
  org.joda.time.Duration allowedLateness;

  @Option(
      names = "--workload-changes",
      paramLabel = "FILE",
      description =
          "Change the workload while the run goes on: JSON lines {\"time\":<epoch ms>,\"add\":"
              + "\"QUERY ...\"} or {\"time\":..,\"remove\":\"q3\"} (or [\"q3\",\"q4\"]). An"
              + " added query evaluates the windows starting at or after its time, a removed one"
              + " gives nothing for windows ending after it. A change that does not apply stops the"
              + " run, or goes to --dead-letter.")
  Path workloadChanges;

  @Option(
      names = "--changes-as-stream",
      description =
          "With a runner: send --workload-changes to the pipeline as a stream while the events"
              + " flow (a change log, a sequencer and a version store in the run's work"
              + " directory) instead of as a schedule known when it is built. Same results.")
  boolean changesAsStream;

  @Option(
      names = "--dead-letter",
      paramLabel = "FILE",
      description =
          "Write bad event lines here, with their line number and reason, and go on;"
              + " without it the first bad line stops the run.")
  Path deadLetter;

  @Override
  public Integer call() throws IOException {
    PrintWriter err = spec.commandLine().getErr();
    Engines chosen;
    try {
      chosen = Engines.ofCliName(engine);
    } catch (IllegalArgumentException e) {
      throw new EventideCli.UsageException(e.getMessage());
    }
    if (maxDelay.getMillis() < 0) {
      throw new EventideCli.UsageException("--max-delay must not be negative");
    }
    Workload workload = readWorkload();
    List<WorkloadChange> changes = readChanges();
    if (!changes.isEmpty() && chosen == Engines.GRETA) {
      throw new EventideCli.UsageException(
          "--engine greta evaluates a fixed workload; --workload-changes needs hamlet,"
              + " hamlet-static or unshared");
    }
    checkOutputsAreNotInputs();
    if (runner.given()) {
      return runPipeline(workload, changes, chosen, err);
    }
    if (changesAsStream) {
      throw new EventideCli.UsageException(
          "--changes-as-stream applies to a pipeline (--runner, --flink-master or --config); the"
              + " in-process engines apply the changes as they read the events");
    }
    if (spec.commandLine().getParseResult().hasMatchedOption("--allowed-lateness")) {
      throw new EventideCli.UsageException(
          "--allowed-lateness applies to a pipeline (--runner, --flink-master or --config); the"
              + " in-process engines read events in time order (--max-delay, --sort)");
    }
    try (TextLines in = openEvents();
        Writer results = openOut();
        Writer dead = openDeadLetter()) {
      TrendJob.Summary summary;
      try {
        TrendJob.Options options =
            TrendJob.Options.inTimeOrder()
                .withMaxDelay(maxDelay.getMillis())
                .withProgress(
                    p -> {
                      err.printf(
                          java.util.Locale.ROOT,
                          "eventide trends: %,d events read, %,d windows closed, %,.0f events/s%n",
                          p.eventsRead(),
                          p.windowsClosed(),
                          p.eventsPerSecond());
                      err.flush();
                    },
                    PROGRESS_EVERY_MILLIS);
        summary =
            TrendJob.run(
                workload, changes, chosen, in, results, dead, sort ? options.sorted() : options);
      } catch (BadChangeException e) {
        err.println("eventide trends: " + workloadChanges + ": " + e.getMessage());
        err.println("Fix the change, or pass --dead-letter FILE to set refused changes aside.");
        return EventideCli.EXIT_FAILED;
      } catch (BadEventException e) {
        err.println("eventide trends: " + events + ":" + e.line() + ": " + e.reason());
        err.println("Fix the line, or pass --dead-letter FILE to set bad lines aside.");
        return EventideCli.EXIT_FAILED;
      } catch (EventOrderException e) {
        err.println("eventide trends: " + events + ":" + e.line() + ": " + e.reason());
        return EventideCli.EXIT_FAILED;
      }
      err.printf(
          "eventide trends: %d events, %d results, %d ms (%s)%n",
          summary.events(), summary.results(), summary.millis(), chosen.cliName());
      if (summary.badEvents() > 0) {
        err.printf(
            "eventide trends: %d bad event lines written to %s%n", summary.badEvents(), deadLetter);
      }
      if (!changes.isEmpty()) {
        reportChanges(
            err,
            summary.statistics().getOrDefault("workloadChanges", 0L),
            summary.statistics().getOrDefault("refusedWorkloadChanges", 0L));
      }
      return 0;
    }
  }

  /** The workload as a pipeline on TrendAggregate: events read here, results collected here. */
  private int runPipeline(
      Workload workload, List<WorkloadChange> changes, Engines chosen, PrintWriter err)
      throws IOException {
    Sharing sharing =
        switch (chosen) {
          case HAMLET -> Sharing.DYNAMIC;
          case HAMLET_STATIC -> Sharing.STATIC;
          case UNSHARED -> Sharing.NONE;
          case GRETA ->
              throw new EventideCli.UsageException(
                  "--engine greta is the in-process baseline; with --runner use hamlet,"
                      + " hamlet-static or unshared");
        };
    if (allowedLateness.getMillis() < 0) {
      throw new EventideCli.UsageException("--allowed-lateness must not be negative");
    }
    PipelineOptions options = runner.create("trends");
    List<Event> read = new ArrayList<>();
    long badLines = 0;
    try (TextLines in = openEvents();
        Writer results = openOut();
        Writer dead = openDeadLetter()) {
      List<BadChangeException> refused = new ArrayList<>();
      WorkloadVersions schema = WorkloadVersions.of(workload, changes, refused::add);
      if (!refused.isEmpty() && dead == null) {
        err.println("eventide trends: " + workloadChanges + ": " + refused.get(0).getMessage());
        err.println("Fix the change, or pass --dead-letter FILE to set refused changes aside.");
        return EventideCli.EXIT_FAILED;
      }
      for (BadChangeException r : refused) {
        dead.write(TrendJob.deadLetterLine(r));
        dead.write('\n');
      }
      for (TextLines.Line line = in.next(); line != null; line = in.next()) {
        if (line.isValid() && line.text().isBlank()) {
          continue;
        }
        try {
          read.add(TrendJob.parseEvent(line, schema));
        } catch (BadEventException e) {
          if (dead == null) {
            err.println("eventide trends: " + events + ":" + e.line() + ": " + e.reason());
            err.println("Fix the line, or pass --dead-letter FILE to set bad lines aside.");
            return EventideCli.EXIT_FAILED;
          }
          badLines++;
          dead.write(TrendJob.deadLetterLine(e, line.text()));
          dead.write('\n');
        }
      }
      Path work = Files.createTempDirectory("eventide-trends-");
      TrendPipeline.Outcome outcome;
      ScheduledExecutorService progress = progressPrinter(err, read.size());
      try {
        outcome =
            TrendPipeline.run(
                workload,
                schema.accepted(),
                changesAsStream
                    ? TrendPipeline.ChangeDelivery.STREAM
                    : TrendPipeline.ChangeDelivery.SCHEDULE,
                sharing,
                allowedLateness,
                read,
                options,
                work);
      } catch (RuntimeException e) {
        throw new IllegalStateException("the pipeline failed: " + EventideCli.describe(e), e);
      } finally {
        progress.shutdownNow();
        TrendPipeline.deleteWork(work);
      }
      for (String r : outcome.results()) {
        results.write(r);
        results.write('\n');
      }
      for (String d : outcome.deadLetters()) {
        if (dead != null) {
          dead.write(d);
          dead.write('\n');
        }
      }
      err.printf(
          "eventide trends: %d events, %d results, %d ms (%s on %s)%n",
          read.size(),
          outcome.results().size(),
          outcome.millis(),
          chosen.cliName(),
          options.getRunner().getSimpleName());
      if (badLines > 0) {
        err.printf("eventide trends: %d bad event lines written to %s%n", badLines, deadLetter);
      }
      if (!changes.isEmpty()) {
        reportChanges(err, schema.accepted().size(), refused.size());
      }
      if (!outcome.deadLetters().isEmpty()) {
        if (dead == null) {
          err.printf(
              "eventide trends: %d events not aggregated, e.g. %s; pass --dead-letter FILE to"
                  + " keep them%n",
              outcome.deadLetters().size(), outcome.deadLetters().get(0));
          return EventideCli.EXIT_FAILED;
        }
        err.printf(
            "eventide trends: %d events not aggregated written to %s%n",
            outcome.deadLetters().size(), deadLetter);
      }
      return 0;
    }
  }

  private void reportChanges(PrintWriter err, long applied, long refused) {
    err.printf(
        "eventide trends: %d workload changes applied%s%n",
        applied, refused > 0 ? ", " + refused + " refused (written to " + deadLetter + ")" : "");
  }

  private ScheduledExecutorService progressPrinter(PrintWriter err, int events) {
    ScheduledExecutorService executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "eventide-trends-progress");
              t.setDaemon(true);
              return t;
            });
    long started = System.nanoTime();
    executor.scheduleAtFixedRate(
        () -> {
          err.printf(
              java.util.Locale.ROOT,
              "eventide trends: pipeline over %,d events running, %.0f s%n",
              events,
              (System.nanoTime() - started) / 1e9);
          err.flush();
        },
        PROGRESS_EVERY_MILLIS,
        PROGRESS_EVERY_MILLIS,
        TimeUnit.MILLISECONDS);
    return executor;
  }

  private Workload readWorkload() {
    String text = CliFiles.readText("--queries", queries);
    try {
      Workload workload = Workload.parse(text);
      Engines.check(workload);
      return workload;
    } catch (QueryException e) {
      throw new EventideCli.UsageException(
          queries + ":" + e.line() + ":" + e.column() + ": " + problemOf(e));
    } catch (IllegalArgumentException e) {
      throw new EventideCli.UsageException(queries + ": " + e.getMessage());
    }
  }

  /** The changes of --workload-changes, or none. */
  private List<WorkloadChange> readChanges() {
    if (workloadChanges == null) {
      return List.of();
    }
    List<WorkloadChange> changes = new ArrayList<>();
    String[] lines = CliFiles.readText("--workload-changes", workloadChanges).split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      if (lines[i].isBlank()) {
        continue;
      }
      try {
        changes.add(WorkloadChangeJson.parse(lines[i], i + 1));
      } catch (BadChangeException e) {
        throw new EventideCli.UsageException(workloadChanges + ":" + e.line() + ": " + e.reason());
      }
    }
    return changes;
  }

  private static String problemOf(QueryException e) {
    String message = e.getMessage();
    return message.substring(message.indexOf(": ") + 2);
  }

  /** No output may overwrite an input or another output. */
  private void checkOutputsAreNotInputs() {
    List<CliFiles.Named> inputs = new ArrayList<>();
    inputs.add(new CliFiles.Named("--queries", queries));
    if (!events.equals("-")) {
      inputs.add(new CliFiles.Named("--events", Path.of(events)));
    }
    if (runner.config != null) {
      inputs.add(new CliFiles.Named("--config", runner.config));
    }
    if (workloadChanges != null) {
      inputs.add(new CliFiles.Named("--workload-changes", workloadChanges));
    }
    List<CliFiles.Named> outputs = new ArrayList<>();
    if (!out.equals("-")) {
      outputs.add(new CliFiles.Named("--out", Path.of(out)));
    }
    if (deadLetter != null) {
      outputs.add(new CliFiles.Named("--dead-letter", deadLetter));
    }
    CliFiles.checkDistinct(inputs, outputs);
  }

  private TextLines openEvents() {
    return events.equals("-")
        ? CliFiles.openLines("the standard input", System.in)
        : CliFiles.openLines("--events", Path.of(events));
  }

  private Writer openOut() {
    return out.equals("-") ? CliFiles.standardOutput() : CliFiles.openOutput("--out", Path.of(out));
  }

  private Writer openDeadLetter() {
    return deadLetter == null ? null : CliFiles.openOutput("--dead-letter", deadLetter);
  }
}
