package dev.eventide.pipelines.cli;

import dev.eventide.pipelines.bench.TrendStreams;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Option;

/** The trend benchmarks' workload: which streams, how many events per window and queries. */
final class TrendBenchOptions {
  @Option(
      names = "--streams",
      split = ",",
      defaultValue = "rides,stocks",
      paramLabel = "STREAM",
      description =
          "Streams: rides, stocks, scattered (rides with short Travel runs and a speed limit of"
              + " its own per query: bursts hardly worth sharing), varpulis (the shape of"
              + " Varpulis's multi-query benchmark: queries SEQ(S<i mod 10>, B+) COUNT(*), runs of"
              + " one start event and 20 B events) (default: ${DEFAULT-VALUE}).")
  List<String> streams;

  @Option(
      names = "--events-per-window",
      split = ",",
      defaultValue = "1000,10000,100000,1000000",
      paramLabel = "N",
      description = "Events per window to vary (default: ${DEFAULT-VALUE}).")
  List<Integer> eventsPerWindow;

  @Option(
      names = "--fixed-queries",
      defaultValue = "25",
      paramLabel = "K",
      description = "Queries while events per window vary (default: ${DEFAULT-VALUE}).")
  int fixedQueries;

  @Option(
      names = "--windows",
      defaultValue = "2",
      paramLabel = "W",
      description = "Windows per run (default: ${DEFAULT-VALUE}).")
  int windows;

  /**
   * Checks the values.
   *
   * @throws EventideCli.UsageException naming the flag whose value cannot make a run
   */
  void check() {
    CliChecks.atLeast("--windows", windows, 1);
    CliChecks.atLeast("--fixed-queries", fixedQueries, 1);
    eventsPerWindow.forEach(n -> CliChecks.atLeast("--events-per-window", n, 1));
    for (String name : streams) {
      if (!List.of("rides", "stocks", "scattered", "varpulis").contains(name)) {
        throw new EventideCli.UsageException(
            "--streams: unknown stream '"
                + name
                + "'; expected rides, stocks, scattered or varpulis");
      }
    }
  }

  /** The stream a name of {@code --streams} names. */
  static TrendStreams.Kind stream(String name) {
    return TrendStreams.Kind.valueOf(name.toUpperCase(Locale.ROOT));
  }
}
