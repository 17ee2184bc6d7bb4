package dev.eventide.pipelines.cli;

import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.io.BadEventException;
import dev.eventide.trends.io.EventOrderException;
import dev.eventide.trends.io.TrendJob;
import dev.eventide.trends.query.QueryException;
import dev.eventide.trends.query.Workload;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
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
      "Events: JSON lines {\"type\":..,\"time\":<epoch ms>,<attributes>}, in time order (or"
          + " out of order by at most --max-delay; --sort reads and sorts the whole file)."
          + " Results: JSON lines {\"query\",\"group\",\"window_start\",\"window_end\",\"value\"}.",
      "Events are evaluated as they are read: memory is bounded by the open windows and"
          + " --max-delay, not by the file. A long run prints its progress on stderr.",
      "Exit codes: 0 done, 1 a bad event line (without --dead-letter), an event out of order"
          + " beyond --max-delay, or an I/O failure, 2 bad usage or a bad query file."
    })
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
      description = "The event file, or - for standard input.")
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
    try (BufferedReader in = openEvents();
        Writer results = openOut();
        Writer dead =
            deadLetter == null
                ? null
                : Files.newBufferedWriter(deadLetter, StandardCharsets.UTF_8)) {
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
            TrendJob.run(workload, chosen, in, results, dead, sort ? options.sorted() : options);
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
      return 0;
    }
  }

  private Workload readWorkload() throws IOException {
    String text;
    try {
      text = Files.readString(queries, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new EventideCli.UsageException("no query file " + queries);
    }
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

  private static String problemOf(QueryException e) {
    String message = e.getMessage();
    return message.substring(message.indexOf(": ") + 2);
  }

  private BufferedReader openEvents() throws IOException {
    if (events.equals("-")) {
      return new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    }
    Path path = Path.of(events);
    if (!Files.isRegularFile(path)) {
      throw new EventideCli.UsageException("no event file " + events);
    }
    return Files.newBufferedReader(path, StandardCharsets.UTF_8);
  }

  private Writer openOut() throws IOException {
    if (out.equals("-")) {
      return new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8)) {
        @Override
        public void close() throws IOException {
          flush(); // leave System.out open
        }
      };
    }
    return Files.newBufferedWriter(Path.of(out), StandardCharsets.UTF_8);
  }
}
