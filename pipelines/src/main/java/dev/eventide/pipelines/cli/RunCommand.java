package dev.eventide.pipelines.cli;

import dev.eventide.generators.LateEventGenerator;
import dev.eventide.generators.LatenessDistribution;
import dev.eventide.pipelines.PipelineCounters;
import dev.eventide.pipelines.aion.AionPipeline;
import dev.eventide.pipelines.aion.AionWorkload;
import dev.eventide.pipelines.aion.WindowReport;
import dev.eventide.pipelines.linearroad.LinearRoadPipeline;
import dev.eventide.pipelines.options.RunnerSelection;
import dev.eventide.pipelines.output.OutputSummary;
import dev.eventide.pipelines.overlap.OverlapPipeline;
import dev.eventide.pipelines.overlap.OverlapReport;
import dev.eventide.pipelines.ridesharing.RideSharing;
import dev.eventide.pipelines.ridesharing.RideStream;
import dev.eventide.pipelines.stocks.StockMarketPipeline;
import dev.eventide.tiering.store.BlockStore;
import dev.eventide.tiering.store.BlockStores;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptions;
import org.joda.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code eventide run}: runs one of Eventide's workloads and prints a per-window summary. */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    versionProvider = EventideCli.Version.class,
    description = {
      "Runs a workload over a generated stream with late events and prints a per-window summary"
          + " on stdout, with progress on stderr.",
      "",
      "WORKLOAD average: the Aion paper's average of random integers per tumbling window; an"
          + " event arriving at time a has event time a - k*window, k drawn from --lateness."
          + " Windows are Eventide's TieredWindow (past windows spill to --store); --native runs"
          + " Beam's own windowing instead.",
      "WORKLOAD bigrams: the Aion paper's most frequent bigram per tumbling window (a value names"
          + " one of 200 words), over the same stream.",
      "WORKLOAD overlap: the semantic-overlap paper: one small stream through Beam's native Filter,"
          + " Map, FlatMap and windowed join and through the Aggregate-built ones; prints both"
          + " outputs side by side and whether they agree (exit code 1 if not).",
      "WORKLOAD stock-market: the Aion paper's stock dataflow: per-symbol rolling min/max/mean in"
          + " a sliding window (the window, every half of it), alerts on moves of at least 5%% and"
          + " post mentions per tumbling window, joined per symbol (AggregateJoin), and their"
          + " correlation per window. Windows are TieredWindow; the join reads each window's"
          + " final values, once its lateness is over.",
      "WORKLOAD linear-road: a simplified Linear Road: vehicles' position reports; per segment and"
          + " minute (--window, default 1m) the vehicles, average speed and accidents"
          + " (TieredWindow), joined per segment (AggregateJoin) into Linear Road's toll.",
      "WORKLOAD ridesharing: the HAMLET paper's ride-sharing trend queries on TrendAggregate."
    },
    footer = {"", DurationConverter.HELP},
    sortOptions = false)
final class RunCommand implements Callable<Integer> {
  /** The workloads {@code run} knows, by their command-line names. */
  enum Workload {
    AVERAGE("average"),
    BIGRAMS("bigrams"),
    OVERLAP("overlap"),
    STOCK_MARKET("stock-market"),
    LINEAR_ROAD("linear-road"),
    RIDESHARING("ridesharing");

    final String cliName;

    Workload(String cliName) {
      this.cliName = cliName;
    }

    @Override
    public String toString() {
      return cliName;
    }

    /** Whether the workload's windows are {@code TieredWindow}s (unless --native). */
    boolean tiered() {
      return this == AVERAGE || this == BIGRAMS || this == STOCK_MARKET || this == LINEAR_ROAD;
    }
  }

  /** Converts a workload's command-line name. */
  static final class WorkloadConverter implements CommandLine.ITypeConverter<Workload> {
    @Override
    public Workload convert(String value) {
      for (Workload w : Workload.values()) {
        if (w.cliName.equals(value)) {
          return w;
        }
      }
      throw new CommandLine.TypeConversionException(
          "unknown workload '" + value + "'; expected one of " + String.join(", ", new Names()));
    }
  }

  /** The workloads' command-line names, for --help. */
  static final class Names implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return java.util.Arrays.stream(Workload.values()).map(w -> w.cliName).iterator();
    }
  }

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(
      index = "0",
      arity = "0..1",
      defaultValue = "average",
      paramLabel = "WORKLOAD",
      converter = WorkloadConverter.class,
      completionCandidates = Names.class,
      description = "The workload: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}).")
  Workload workload;

  @Option(
      names = "--runner",
      paramLabel = "RUNNER",
      converter = RunnerConverter.class,
      description =
          "direct or flink (or DirectRunner, FlinkRunner) (default: the config file's, else"
              + " flink).")
  RunnerSelection.Runner runner;

  @Option(
      names = "--flink-master",
      paramLabel = "MASTER",
      description =
          "[local] for embedded Flink, or host:port of a session cluster (default: the"
              + " config file's, else [local]).")
  String flinkMaster;

  @Option(names = "--parallelism", paramLabel = "N", description = "Parallelism of the job.")
  Integer parallelism;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "Runner options file, one Beam pipeline option per line (see runner-configs/).")
  Path config;

  @Option(
      names = "--events",
      paramLabel = "N",
      description =
          "Events to generate (default: 200000, on the DirectRunner 20000 and for ridesharing"
              + " there 5000; overlap: 500); stock-market adds half as many posts.")
  Long events;

  @Option(
      names = "--events-per-window",
      paramLabel = "N",
      description =
          "Events arriving per window of arrival time (default: 10000; overlap: 50; linear-road:"
              + " 2000, a report per vehicle every 30 s).")
  Integer eventsPerWindow;

  @Option(
      names = "--window",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description =
          "Tumbling window size, also the watermark period (default: 10s; linear-road: 1m).")
  Duration window;

  @Option(
      names = "--allowed-lateness",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description =
          "How long after its end a window accepts late events (default: 4 windows, 40s with"
              + " the default window); later events are set aside and counted.")
  Duration allowedLateness;

  @Option(
      names = "--late-fraction",
      paramLabel = "P",
      defaultValue = "1.0",
      description = "Share of events delayed by --lateness windows (default: ${DEFAULT-VALUE}).")
  double lateFraction;

  @Option(
      names = "--lateness",
      paramLabel = "DIST",
      defaultValue = "lognormal(0,1)",
      description =
          "How many windows late an event is: lognormal(mu,sigma), uniform(min,max),"
              + " normal(mean,sd), or bursts(sd,c1,c2,...), an equal mix of normal distributions"
              + " of standard deviation sd centred c1, c2, ... windows late (default:"
              + " ${DEFAULT-VALUE}, the Aion paper's).")
  String lateness;

  @Option(
      names = "--native",
      description =
          "average, bigrams: Beam's own windowing (Window + GroupByKey, accumulating panes)"
              + " instead of TieredWindow.")
  boolean nativeWindowing;

  @Option(
      names = "--store",
      paramLabel = "URI",
      description =
          "Workloads on TieredWindow: its block store, file:///dir or gs://bucket/prefix"
              + " (default: the blocks/ directory of --output).")
  String store;

  @Option(
      names = "--purge-delay",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description =
          "Workloads on TieredWindow: how long it keeps a window's blocks after its purge"
              + " (default: 0s). On Flink with checkpoints they go only once a checkpoint without"
              + " the window completes; a delay keeps them for restores from older checkpoints or"
              + " savepoints.")
  Duration purgeDelay;

  @Option(
      names = "--fault-drill-at",
      paramLabel = "N",
      description =
          "average, bigrams on a checkpointed Flink job: the stream stands still before event N,"
              + " once a checkpoint covering the events before it has completed, until the job"
              + " restarts from a checkpoint. Kill the TaskManager that runs it to watch the job"
              + " recover; without a failure it never ends.")
  Long faultDrillAt;

  @Option(
      names = "--show",
      paramLabel = "N",
      defaultValue = "8",
      description =
          "overlap: outputs of each operator printed side by side; stock-market, linear-road:"
              + " lines of each output printed (default: ${DEFAULT-VALUE}).")
  int show;

  @Option(
      names = "--seed",
      paramLabel = "N",
      defaultValue = "42",
      description = "Seed of the generator (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--output",
      paramLabel = "DIR",
      description =
          "Directory for pane files and summary.jsonl; must be new or empty (default:"
              + " eventide-output/WORKLOAD-TIME).")
  Path output;

  @Override
  public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (events == null) {
      events =
          workload == Workload.OVERLAP
              ? 500L
              : !runsOnDirectRunner()
                  ? DEFAULT_EVENTS
                  : workload == Workload.RIDESHARING ? DIRECT_RUNNER_RIDES : DIRECT_RUNNER_EVENTS;
    }
    if (eventsPerWindow == null) {
      eventsPerWindow =
          switch (workload) {
            case OVERLAP -> 50;
            case LINEAR_ROAD -> 2_000;
            default -> 10_000;
          };
    }
    if (window == null) {
      window =
          workload == Workload.LINEAR_ROAD
              ? Duration.standardMinutes(1)
              : Duration.standardSeconds(10);
    }
    if (allowedLateness == null) {
      // saturated: a window too long for Beam's times is refused by checkFlags, naming --window
      long windowMillis = window.getMillis();
      allowedLateness =
          Duration.millis(
              windowMillis > Long.MAX_VALUE / DEFAULT_LATENESS_WINDOWS
                  ? Long.MAX_VALUE
                  : windowMillis * DEFAULT_LATENESS_WINDOWS);
    }
    checkFlags();
    switch (workload) {
      case RIDESHARING:
        return runRideSharing(out, err);
      case OVERLAP:
        return runOverlap(out, err);
      case STOCK_MARKET:
      case LINEAR_ROAD:
        return runDataflow(out, err);
      default:
        break;
    }
    LateEventGenerator generator = generator();
    PipelineOptions options = pipelineOptions();
    if (faultDrillAt != null && !checkpointed(options)) {
      throw new EventideCli.UsageException(
          "--fault-drill-at needs a Flink job that checkpoints (checkpointingInterval in"
              + " --config): without a checkpoint to restart from, it would never end");
    }
    Path outputDirectory = prepareOutput();
    options.setJobName("eventide-" + workload + "-" + System.currentTimeMillis());

    AionWorkload aion = AionWorkload.valueOf(workload.name());
    String blockStore = blockStore(outputDirectory, options);
    Pipeline pipeline = Pipeline.create(options);
    AionPipeline.Settings settings =
        AionPipeline.Settings.of(
            aion,
            generator,
            allowedLateness,
            nativeWindowing,
            blockStore,
            purgeDelay != null ? purgeDelay : Duration.ZERO,
            outputDirectory.toAbsolutePath().toString());
    if (faultDrillAt != null) {
      settings = settings.withFaultDrillAt(faultDrillAt);
    }
    AionPipeline.build(pipeline, settings);

    String runnerName = options.getRunner().getSimpleName();
    err.printf(
        Locale.ROOT,
        "%s: %,d events, window %s, allowed lateness %s, lateness %s, %s, on %s; output in %s%n",
        workload,
        events,
        DurationConverter.format(window),
        DurationConverter.format(allowedLateness),
        generator.lateness(),
        nativeWindowing ? "Beam's windowing" : "TieredWindow (blocks in " + blockStore + ")",
        runnerName,
        outputDirectory);
    err.flush();
    long started = System.nanoTime();
    PipelineResult result = runWithProgress(pipeline, outputDirectory, err);
    double seconds = (System.nanoTime() - started) / 1e9;

    WindowReport report = WindowReport.read(outputDirectory);
    report.print(out, aion.resultName(), nativeWindowing);
    Path summary = report.write(outputDirectory);
    out.flush();
    err.printf(
        Locale.ROOT,
        "%s: done in %.1f s (%,.0f events/s): %d windows, %,d events aggregated, %s beyond the"
            + " allowed lateness (set aside); summary in %s%n",
        workload,
        seconds,
        events / seconds,
        report.windows().size(),
        report.events(),
        counter(result, AionPipeline.METRICS_NAMESPACE, "eventsBeyondAllowedLateness")
            .map(n -> String.format("%,d", n))
            .orElse("?"),
        summary);
    return 0;
  }

  private String blockStore(Path outputDirectory, PipelineOptions options) {
    if (store == null) {
      return outputDirectory.toAbsolutePath().resolve("blocks").toUri().toString();
    }
    if (!runsRemotely(options)) {
      // The workers are this process: a store they cannot write fails here, before the job starts,
      // not in the middle of it. (A session cluster's workers may see another file system.)
      try (BlockStore opened = BlockStores.open(store)) {
        opened.delete(opened.write("eventide-run-probe", new byte[] {1}));
      } catch (IOException | RuntimeException e) {
        throw new EventideCli.UsageException(
            "--store "
                + store
                + ": cannot write a block there ("
                + e.getMessage()
                + "); choose a store this user can write");
      }
    }
    return store;
  }

  private static boolean runsRemotely(PipelineOptions options) {
    if (!options.getRunner().getSimpleName().startsWith("Flink")) {
      return false;
    }
    String master = options.as(FlinkPipelineOptions.class).getFlinkMaster();
    return !master.equals("[local]") && !master.equals("[auto]");
  }

  /** stock-market or linear-road: a dataflow of windows and joins, its final results in files. */
  private int runDataflow(PrintWriter out, PrintWriter err) throws Exception {
    LateEventGenerator generator = generator();
    PipelineOptions options = pipelineOptions();
    Path outputDirectory = prepareOutput();
    options.setJobName("eventide-" + workload + "-" + System.currentTimeMillis());
    String blockStore = blockStore(outputDirectory, options);
    Duration purge = purgeDelay != null ? purgeDelay : Duration.ZERO;
    String directory = outputDirectory.toAbsolutePath().toString();
    Pipeline pipeline = Pipeline.create(options);
    List<String> outputs;
    String namespace;
    List<String> setAside;
    String streams;
    try {
      if (workload == Workload.STOCK_MARKET) {
        LateEventGenerator prices =
            generator.toBuilder()
                .setKeys(STOCK_SYMBOLS)
                .setMaxValue(StockMarketPipeline.PRICE_STEPS)
                .build();
        LateEventGenerator posts =
            prices.toBuilder()
                .setEvents(events / 2)
                .setEventsPerWindow(Math.max(1, eventsPerWindow / 2))
                .setSeed(seed + 1)
                .build();
        StockMarketPipeline.build(
            pipeline,
            StockMarketPipeline.Settings.of(
                prices, posts, allowedLateness, blockStore, purge, directory));
        outputs = StockMarketPipeline.OUTPUTS;
        namespace = StockMarketPipeline.METRICS_NAMESPACE;
        setAside = List.of(namespace + ".prices", namespace + ".posts");
        streams =
            String.format(
                Locale.ROOT,
                "%,d prices and %,d posts of %d symbols",
                events,
                events / 2,
                STOCK_SYMBOLS);
      } else {
        LateEventGenerator reports =
            generator.toBuilder()
                .setKeys(LINEAR_ROAD_VEHICLES)
                .setMaxValue(LinearRoadPipeline.REPORT_VALUES)
                .build();
        LinearRoadPipeline.build(
            pipeline,
            LinearRoadPipeline.Settings.of(reports, allowedLateness, blockStore, purge, directory));
        outputs = LinearRoadPipeline.OUTPUTS;
        namespace = LinearRoadPipeline.METRICS_NAMESPACE;
        setAside = List.of(namespace);
        streams =
            String.format(
                Locale.ROOT,
                "%,d position reports of %,d vehicles on %d segments",
                events,
                LINEAR_ROAD_VEHICLES,
                LinearRoadPipeline.SEGMENTS);
      }
    } catch (IllegalArgumentException e) {
      throw new EventideCli.UsageException(e.getMessage());
    }
    err.printf(
        Locale.ROOT,
        "%s: %s, window %s, allowed lateness %s, lateness %s, TieredWindow (blocks in %s), on %s;"
            + " output in %s%n",
        workload,
        streams,
        DurationConverter.format(window),
        DurationConverter.format(allowedLateness),
        generator.lateness(),
        blockStore,
        options.getRunner().getSimpleName(),
        outputDirectory);
    err.flush();
    long started = System.nanoTime();
    PipelineResult result = runWithProgress(pipeline, outputDirectory, err);
    double seconds = (System.nanoTime() - started) / 1e9;
    OutputSummary.print(out, outputDirectory, outputs, show);
    out.flush();
    long beyond = 0;
    for (String gate : setAside) {
      beyond += counter(result, gate, "eventsBeyondAllowedLateness").orElse(0L);
    }
    err.printf(
        Locale.ROOT,
        "%s: done in %.1f s: %,d final window results, %,d of them changed by late events; %,d"
            + " events beyond the allowed lateness (set aside); outputs in %s%n",
        workload,
        seconds,
        counter(result, namespace, "finalValues").orElse(0L),
        counter(result, namespace, "windowsChangedLate").orElse(0L),
        beyond,
        outputDirectory);
    return 0;
  }

  /** Symbols of the stock-market workload. */
  static final int STOCK_SYMBOLS = 16;

  /** Vehicles of the linear-road workload. */
  static final int LINEAR_ROAD_VEHICLES = 1_000;

  /** Events generated by default; on the DirectRunner, a tenth, to finish in about a minute. */
  static final long DEFAULT_EVENTS = 200_000;

  static final long DIRECT_RUNNER_EVENTS = 20_000;

  /** ridesharing on the DirectRunner: about 180 events/s there. */
  static final long DIRECT_RUNNER_RIDES = 5_000;

  /** Whether the flags or the config file choose the DirectRunner; a bad config is found later. */
  private boolean runsOnDirectRunner() {
    if (runner != null) {
      return runner == RunnerSelection.Runner.DIRECT;
    }
    try {
      return RunnerSelection.fromConfig(Optional.ofNullable(config)).isDirect();
    } catch (RunnerSelection.InvalidOptionsException e) {
      return false;
    }
  }

  /** The default allowed lateness, in windows. */
  static final int DEFAULT_LATENESS_WINDOWS = 4;

  /** The HAMLET paper's ride-sharing workload on TrendAggregate. */
  private int runRideSharing(PrintWriter out, PrintWriter err) throws Exception {
    RideStream stream;
    try {
      stream =
          new RideStream(
              (int) Math.min(Integer.MAX_VALUE, events),
              8,
              200,
              lateFraction,
              4 * window.getMillis(),
              seed);
    } catch (IllegalArgumentException e) {
      throw new EventideCli.UsageException(e.getMessage());
    }
    PipelineOptions options = pipelineOptions();
    Path outputDirectory = prepareOutput();
    options.setJobName("eventide-ridesharing-" + System.currentTimeMillis());
    err.printf(
        Locale.ROOT,
        "ridesharing: %,d events, %d districts, %.0f%% late by up to %s, allowed lateness %s, on"
            + " %s; output in %s%n",
        events,
        stream.districts(),
        100 * lateFraction,
        DurationConverter.format(Duration.millis(stream.maxDelayMillis())),
        DurationConverter.format(allowedLateness),
        options.getRunner().getSimpleName(),
        outputDirectory);
    err.flush();
    ScheduledExecutorService progress =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "eventide-ridesharing-progress");
              t.setDaemon(true);
              return t;
            });
    long started = System.nanoTime();
    progress.scheduleAtFixedRate(
        () -> {
          err.printf(Locale.ROOT, "ridesharing: %.0f s%n", (System.nanoTime() - started) / 1e9);
          err.flush();
        },
        2,
        2,
        TimeUnit.SECONDS);
    RideSharing.Report report;
    try {
      report = RideSharing.run(stream, allowedLateness, options, outputDirectory, out);
    } finally {
      progress.shutdownNow();
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    err.printf(
        Locale.ROOT,
        "ridesharing: done in %.1f s (%,.0f events/s): %d results (%d late panes),"
            + " %d events beyond the allowed lateness (dead letters); results in %s%n",
        seconds,
        events / seconds,
        report.outcome().results().size(),
        report.outcome().latePanes(),
        report.outcome().deadLetters().size(),
        report.results());
    return 0;
  }

  /** The semantic-overlap comparison: native and Aggregate-built operators on one stream. */
  private int runOverlap(PrintWriter out, PrintWriter err) throws Exception {
    LateEventGenerator generator = generator();
    PipelineOptions options = pipelineOptions();
    Path outputDirectory = prepareOutput();
    options.setJobName("eventide-overlap-" + System.currentTimeMillis());
    Pipeline pipeline = Pipeline.create(options);
    OverlapPipeline.build(
        pipeline, generator, allowedLateness, outputDirectory.toAbsolutePath().toString());
    err.printf(
        Locale.ROOT,
        "overlap: %,d events, join window %s, allowed lateness %s, lateness %s, on %s; output in"
            + " %s%n",
        events,
        DurationConverter.format(window),
        DurationConverter.format(allowedLateness),
        generator.lateness(),
        options.getRunner().getSimpleName(),
        outputDirectory);
    err.flush();
    long started = System.nanoTime();
    PipelineResult result = runWithProgress(pipeline, outputDirectory, err);
    double seconds = (System.nanoTime() - started) / 1e9;
    OverlapReport report = OverlapReport.read(outputDirectory);
    report.print(out, show);
    out.flush();
    err.printf(
        Locale.ROOT,
        "overlap: done in %.1f s: %s; %s of %,d events beyond the allowed lateness (set aside"
            + " before both); outputs in %s%n",
        seconds,
        report.allAgree() ? "native and Aggregate-built operators agree" : "they DIFFER",
        counter(result, OverlapPipeline.METRICS_NAMESPACE, "eventsBeyondAllowedLateness")
            .map(n -> String.format(Locale.ROOT, "%,d", n))
            .orElse("?"),
        events,
        outputDirectory);
    return report.allAgree() ? 0 : 1;
  }

  private static boolean checkpointed(PipelineOptions options) {
    if (options.getRunner().getSimpleName().equals("DirectRunner")) {
      return false;
    }
    Long interval = options.as(FlinkPipelineOptions.class).getCheckpointingInterval();
    return interval != null && interval > 0;
  }

  private boolean aionWorkload() {
    return workload == Workload.AVERAGE || workload == Workload.BIGRAMS;
  }

  private boolean onTieredWindow() {
    return workload.tiered() && !nativeWindowing;
  }

  /** Values that cannot make a run are usage errors that name their flag, found before any work. */
  private void checkFlags() {
    if (events < 1) {
      throw new EventideCli.UsageException("--events must be at least 1, but was " + events);
    }
    if (window.getMillis() <= 0) {
      throw new EventideCli.UsageException("--window must be longer than 0ms");
    }
    if (eventsPerWindow < 1 || eventsPerWindow > window.getMillis()) {
      throw new EventideCli.UsageException(
          "--events-per-window must be from 1 to the --window in ms ("
              + window.getMillis()
              + "), but was "
              + eventsPerWindow);
    }
    if (allowedLateness.getMillis() < 0) {
      throw new EventideCli.UsageException("--allowed-lateness must not be negative");
    }
    if (purgeDelay != null && purgeDelay.getMillis() > 0 && !onTieredWindow()) {
      throw new EventideCli.UsageException(
          "--purge-delay is for TieredWindow: the average, bigrams (without --native),"
              + " stock-market and linear-road workloads");
    }
    if (purgeDelay != null && purgeDelay.getMillis() < 0) {
      throw new EventideCli.UsageException("--purge-delay must not be negative");
    }
    if (show < 0) {
      throw new EventideCli.UsageException("--show must not be negative, but was " + show);
    }
    if (store != null) {
      if (!onTieredWindow()) {
        throw new EventideCli.UsageException(
            "--store is for TieredWindow: the average, bigrams (without --native), stock-market"
                + " and linear-road workloads");
      }
      try {
        BlockStores.checkUri(store);
      } catch (IllegalArgumentException e) {
        throw new EventideCli.UsageException("--store " + store + ": " + e.getMessage());
      }
    }
    if (nativeWindowing && !aionWorkload()) {
      throw new EventideCli.UsageException("--native is for the average and bigrams workloads");
    }
    if (faultDrillAt != null) {
      if (!aionWorkload()) {
        throw new EventideCli.UsageException(
            "--fault-drill-at is for the average and bigrams workloads");
      }
      if (faultDrillAt < 0 || faultDrillAt >= events) {
        throw new EventideCli.UsageException(
            "--fault-drill-at must be from 0 to --events - 1 ("
                + (events - 1)
                + "), but was "
                + faultDrillAt);
      }
    }
    if (!(lateFraction >= 0 && lateFraction <= 1)) {
      throw new EventideCli.UsageException(
          "--late-fraction must be from 0 to 1, but was " + lateFraction);
    }
    try {
      LatenessDistribution.parse(lateness);
    } catch (IllegalArgumentException e) {
      throw new EventideCli.UsageException("--lateness " + lateness + ": " + e.getMessage());
    }
    // The stream spans events / eventsPerWindow windows after its start, and late events reach
    // back before it (a margin of a thousand windows): all of it must be a time Beam can carry.
    double windows = (double) events / eventsPerWindow + MARGIN_WINDOWS;
    if (windows * window.getMillis() + allowedLateness.getMillis() > MAX_SPAN_MILLIS) {
      throw new EventideCli.UsageException(
          String.format(
              Locale.ROOT,
              "--window %s over %,d events (%,d per window) spans beyond the times Beam can"
                  + " carry (about 292,000 years from 1970); use a shorter --window or fewer"
                  + " --events",
              DurationConverter.format(window),
              events,
              eventsPerWindow));
    }
  }

  private static final double MARGIN_WINDOWS = 1_000;

  /** What fits between the generator's start (2023) and either end of Beam's timestamps. */
  private static final double MAX_SPAN_MILLIS = 9.0e15;

  /** Flink's largest maximum parallelism, 2^15. */
  static final int MAX_PARALLELISM = 32_768;

  private LateEventGenerator generator() {
    try {
      return LateEventGenerator.builder()
          .setEvents(events)
          .setEventsPerWindow(eventsPerWindow)
          .setWindow(window)
          .setLateFraction(lateFraction)
          .setLateness(LatenessDistribution.parse(lateness))
          .setSeed(seed)
          .build();
    } catch (IllegalArgumentException e) {
      throw new EventideCli.UsageException(e.getMessage());
    }
  }

  private Path prepareOutput() throws IOException {
    Path dir = output;
    if (dir != null && dir.toString().isBlank()) {
      throw new EventideCli.UsageException("--output must name a directory, but was empty");
    }
    if (dir == null) {
      String time = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
      dir = Paths.get("eventide-output", workload + "-" + time);
    }
    if (Files.exists(dir)) {
      if (!Files.isDirectory(dir)) {
        throw new EventideCli.UsageException("--output " + dir + " is a file, not a directory");
      }
      try (Stream<Path> entries = Files.list(dir)) {
        if (entries.findAny().isPresent()) {
          throw new EventideCli.UsageException(
              "--output " + dir + " is not empty; choose a new directory");
        }
      }
    }
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new EventideCli.UsageException(
          "--output " + dir + ": cannot create it: " + CliFiles.reason(e));
    }
    if (!Files.isWritable(dir)) {
      throw new EventideCli.UsageException("--output " + dir + ": cannot write in it");
    }
    return dir;
  }

  private PipelineOptions pipelineOptions() {
    return pipelineOptions(config, runner, flinkMaster, parallelism);
  }

  /**
   * The pipeline options of a command's runner flags: the config file's, overridden by the flags
   * that are set (null when not given).
   *
   * @throws EventideCli.UsageException with what is wrong
   */
  static PipelineOptions pipelineOptions(
      Path config, RunnerSelection.Runner runner, String flinkMaster, Integer parallelism) {
    try {
      RunnerSelection selection = RunnerSelection.fromConfig(Optional.ofNullable(config));
      if (runner != null) {
        selection.runner(runner);
      }
      if (flinkMaster != null) {
        selection.flinkMaster(flinkMaster);
      }
      if (parallelism != null) {
        if (parallelism < 1 || parallelism > MAX_PARALLELISM) {
          throw new EventideCli.UsageException(
              "--parallelism must be from 1 to " + MAX_PARALLELISM + ", but was " + parallelism);
        }
        selection.parallelism(parallelism);
      }
      // Before the job jar is looked for: a wrong address is the first thing to fix.
      Optional<RunnerSelection.FlinkAddress> master = selection.remoteFlinkMaster();
      if (master.isPresent()) {
        FlinkMasterCheck.checkReachable(master.get());
      }
      return selection.create(jobJar());
    } catch (RunnerSelection.InvalidOptionsException e) {
      throw new EventideCli.UsageException(e.getMessage());
    }
  }

  /**
   * The shaded job jar next to this code: {@code target/eventide-pipelines-VERSION-job.jar} beside
   * {@code target/classes} or the module's jar.
   */
  static Optional<Path> jobJar() {
    try {
      Path code =
          Paths.get(RunCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path target = code.getParent();
      if (target == null || !Files.isDirectory(target)) {
        return Optional.empty();
      }
      try (Stream<Path> files = Files.list(target)) {
        return files
            .filter(f -> f.getFileName().toString().matches("eventide-pipelines-.*-job\\.jar"))
            .findFirst();
      }
    } catch (IOException | URISyntaxException | SecurityException e) {
      return Optional.empty();
    }
  }

  /** Runs the pipeline on another thread, printing the pane count every two seconds. */
  private PipelineResult runWithProgress(Pipeline pipeline, Path outputDirectory, PrintWriter err)
      throws Exception {
    ExecutorService executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "eventide-" + workload);
              t.setDaemon(true);
              return t;
            });
    long started = System.nanoTime();
    try {
      Future<PipelineResult> run =
          executor.submit(
              () -> {
                PipelineResult result = pipeline.run();
                result.waitUntilFinish();
                return result;
              });
      while (true) {
        try {
          PipelineResult result = run.get(2, TimeUnit.SECONDS);
          if (result.getState() != PipelineResult.State.DONE) {
            throw new IllegalStateException("the pipeline ended in state " + result.getState());
          }
          return result;
        } catch (TimeoutException stillRunning) {
          err.printf(
              Locale.ROOT,
              "%s: %.0f s%s%n",
              workload,
              (System.nanoTime() - started) / 1e9,
              !aionWorkload()
                  ? ""
                  : ", " + WindowReport.countPanes(outputDirectory) + " panes written");
          err.flush();
        } catch (ExecutionException failed) {
          throw new IllegalStateException(
              "the pipeline failed: " + EventideCli.describe(failed.getCause()), failed.getCause());
        }
      }
    } finally {
      executor.shutdownNow();
    }
  }

  private static Optional<Long> counter(PipelineResult result, String namespace, String name) {
    try {
      return Optional.of(PipelineCounters.sum(result, namespace, name));
    } catch (UnsupportedOperationException e) {
      return Optional.empty();
    }
  }
}
