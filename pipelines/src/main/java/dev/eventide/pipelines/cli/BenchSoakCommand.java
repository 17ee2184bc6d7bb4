package dev.eventide.pipelines.cli;

import dev.eventide.generators.LatenessDistribution;
import dev.eventide.pipelines.bench.Charts;
import dev.eventide.pipelines.soak.SoakConfig;
import dev.eventide.pipelines.soak.SoakGauges;
import dev.eventide.pipelines.soak.SoakRun;
import dev.eventide.pipelines.soak.SoakSample;
import dev.eventide.pipelines.soak.SoakVerdict;
import dev.eventide.pipelines.soak.StartedCluster;
import dev.eventide.pipelines.trends.TrendPipeline;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.options.PipelineOptions;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.joda.time.Duration;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code eventide bench soak}: days of event time over ever-new keys; does state stay flat? */
@Command(
    name = "soak",
    mixinStandardHelpOptions = true,
    versionProvider = EventideCli.Version.class,
    description = {
      "One job through every stateful step (TieredWindow spilling to a local block store,"
          + " TrendAggregate GROUPBY key with its retained events in the store, an Aggregate-built"
          + " Filter and a windowed Join), each with the allowed lateness, over a generated stream"
          + " of simulated days: --active-keys keys at a time, each living --key-lifetime of event"
          + " time and never seen again, a share of the events late after Aion's lateness model.",
      "Every period prints the events read, the event time reached, what each step holds (its"
          + " keys, windows or blocks), the heap after GC (in-process runners), the last"
          + " checkpoint's size and, with RocksDB checkpoints on a local path, its live state; at"
          + " the end draws them (PNG) and prints a"
          + " verdict: FLAT when, after a warm-up of a tenth of the run (by events), every gauge's"
          + " last third is within ±10% of its middle third. Runs embedded Flink unless --runner,"
          + " --flink-master or --config say otherwise; stops the job after --minutes.",
    },
    footer = {"", DurationConverter.HELP})
final class BenchSoakCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--minutes",
      defaultValue = "30",
      paramLabel = "M",
      description =
          "Wall-clock minutes to run before stopping the job (default: ${DEFAULT-VALUE}).")
  double minutes;

  @Option(
      names = "--events",
      defaultValue = "1000000000000",
      paramLabel = "N",
      description =
          "Events to generate; the job ends by itself once they are read (default: so many that"
              + " --minutes ends it).")
  long events;

  @Option(
      names = "--active-keys",
      defaultValue = "2000",
      paramLabel = "N",
      description = "Keys active at a time (default: ${DEFAULT-VALUE}).")
  int activeKeys;

  @Option(
      names = "--key-lifetime",
      defaultValue = "1h",
      converter = DurationConverter.class,
      paramLabel = "D",
      description = "Event time a key lives (default: ${DEFAULT-VALUE}).")
  Duration keyLifetime;

  @Option(
      names = "--window",
      defaultValue = "1m",
      converter = DurationConverter.class,
      paramLabel = "D",
      description = "Every step's window (default: ${DEFAULT-VALUE}).")
  Duration window;

  @Option(
      names = "--events-per-window",
      defaultValue = "200",
      paramLabel = "N",
      description = "Events per window of event time: the rate (default: ${DEFAULT-VALUE}).")
  int eventsPerWindow;

  @Option(
      names = "--late-fraction",
      defaultValue = "0.1",
      paramLabel = "F",
      description = "Share of the events that arrive late (default: ${DEFAULT-VALUE}).")
  double lateFraction;

  @Option(
      names = "--lateness",
      defaultValue = "lognormal(0,1)",
      paramLabel = "DIST",
      description =
          "How late, in windows: lognormal(mu,sigma), uniform(min,max), normal(mean,sd),"
              + " bursts(sd,c1,c2,...) (default: ${DEFAULT-VALUE}).")
  String lateness;

  @Option(
      names = "--allowed-lateness",
      defaultValue = "2h",
      converter = DurationConverter.class,
      paramLabel = "D",
      description = "Every step's allowed lateness (default: ${DEFAULT-VALUE}).")
  Duration allowedLateness;

  @Option(
      names = "--store",
      defaultValue = "eventide-output/soak-blocks",
      paramLabel = "DIR",
      description =
          "Where the local block store goes, a directory per run, deleted when the run ends; on a"
              + " session cluster, one the TaskManagers can write (default: ${DEFAULT-VALUE}).")
  Path store;

  @Option(
      names = "--period",
      defaultValue = "10s",
      converter = DurationConverter.class,
      paramLabel = "D",
      description = "Wall-clock time between readings (default: ${DEFAULT-VALUE}).")
  Duration period;

  @Option(
      names = "--checkpoint-interval",
      defaultValue = "10s",
      converter = DurationConverter.class,
      paramLabel = "D",
      description = "Flink's checkpoint interval (default: ${DEFAULT-VALUE}).")
  Duration checkpointInterval;

  @Option(
      names = "--rate",
      defaultValue = "500",
      paramLabel = "R",
      description =
          "Events per second of wall clock, paced once a window; 0 reads as fast as the job takes"
              + " them, which measures its capacity and leaves its steady state to chance"
              + " (default: ${DEFAULT-VALUE}).")
  double rate;

  @Option(
      names = "--seed",
      defaultValue = "1",
      paramLabel = "N",
      description = "Seed of the generated stream (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--start-cluster",
      description =
          "Start a Flink session cluster (bin/flink-cluster: a JobManager and a TaskManager with 2"
              + " slots, RocksDB state), run the job on it and stop it at the end.")
  boolean startCluster;

  @Mixin RunnerOptions runner;

  @Mixin ChartOptions charts;

  /** The run after the warm-up is this many times longer than it. */
  private static final int RUN_TO_WARM_UP = 10;

  private static final double TOLERANCE = 0.10;

  @Override
  public Integer call() throws Exception {
    if (!(minutes > 0)) {
      throw new EventideCli.UsageException("--minutes must be > 0, but was " + minutes);
    }
    CliChecks.atLeast("--events", events, 1);
    atLeast("--period", period, Duration.standardSeconds(1));
    atLeast("--checkpoint-interval", checkpointInterval, Duration.millis(100));
    LatenessDistribution latenessModel;
    try {
      latenessModel = LatenessDistribution.parse(lateness);
    } catch (IllegalArgumentException e) {
      throw new EventideCli.UsageException("--lateness " + lateness + ": " + e.getMessage());
    }
    SoakConfig config;
    try {
      config =
          new SoakConfig(
              events,
              activeKeys,
              keyLifetime,
              window,
              eventsPerWindow,
              lateFraction,
              latenessModel,
              allowedLateness,
              // A directory per run: blocks an earlier run left (one stopped mid-way) are not
              // counted as this run's.
              store
                  .toAbsolutePath()
                  .resolve("run-" + System.currentTimeMillis())
                  .toUri()
                  .toString(),
              rate,
              seed);
    } catch (IllegalArgumentException e) {
      throw new EventideCli.UsageException(e.getMessage());
    }
    CliFiles.checkWritableDirectory("--store", store);
    charts.check();
    if (startCluster && runner.given()) {
      throw new EventideCli.UsageException(
          "--start-cluster chooses the runner: leave out --runner, --flink-master, --parallelism"
              + " and --config");
    }
    PrintWriter err = spec.commandLine().getErr();
    StartedCluster cluster = null;
    if (startCluster) {
      Path log = store.resolve("flink-cluster.log");
      err.println("soak: starting a Flink session cluster (bin/flink-cluster), output in " + log);
      err.flush();
      cluster = StartedCluster.start(repository().resolve("bin/flink-cluster"), 2, log);
    }
    try {
      return run(config, cluster, err);
    } finally {
      if (cluster != null) {
        err.println("soak: stopping the Flink session cluster it started");
        err.flush();
        cluster.close();
      }
      // The run's blocks are of no use once its job is gone (a cancelled job is not restored).
      Path runStore = Path.of(java.net.URI.create(config.storeUri()));
      try {
        TrendPipeline.deleteWork(runStore);
      } catch (IOException e) {
        err.println("soak: could not delete the run's store " + runStore + ": " + e);
        err.flush();
      }
    }
  }

  private int run(SoakConfig config, StartedCluster cluster, PrintWriter err) throws Exception {
    PipelineOptions options;
    if (cluster != null) {
      RunnerOptions onCluster = new RunnerOptions();
      onCluster.config = repository().resolve("runner-configs/flink-cluster-rocksdb.conf");
      onCluster.flinkMaster = cluster.restAddress();
      options = onCluster.create("soak");
    } else {
      options = runner.given() ? runner.create("soak") : embeddedFlink().create("soak");
    }
    if (!options.getRunner().getSimpleName().equals("DirectRunner")) {
      options
          .as(FlinkPipelineOptions.class)
          .setCheckpointingInterval(checkpointInterval.getMillis());
    }

    PrintWriter out = spec.commandLine().getOut();
    err.printf(
        "soak: %s for %.1f min, %,d keys at a time living %s, %s windows, allowed lateness %s%n",
        options.getJobName(),
        minutes,
        activeKeys,
        DurationConverter.format(keyLifetime),
        DurationConverter.format(window),
        DurationConverter.format(allowedLateness));
    err.flush();
    out.println(header());
    SoakRun.Outcome outcome =
        new SoakRun(config, options)
            .run(
                java.time.Duration.ofMillis(period.getMillis()),
                java.time.Duration.ofMillis(Math.round(minutes * 60_000)),
                sample -> {
                  out.println(row(sample));
                  out.flush();
                  err.printf(
                      "soak: %.0f of %.0f s, %,d events, event time %s%n",
                      sample.seconds(),
                      minutes * 60,
                      sample.events(),
                      sample.eventTime().toString().substring(0, 16));
                  err.flush();
                });
    List<SoakSample> samples = outcome.samples();
    if (samples.isEmpty()) {
      out.println("no reading of the job: " + outcome.state());
      return 1;
    }
    out.printf(
        "job %s after %.0f s: %s%s%n",
        outcome.stopped() ? "stopped" : "ended",
        samples.get(samples.size() - 1).seconds(),
        outcome.state(),
        outcome.failure() == null ? "" : ", " + outcome.failure());
    if (!outcome.stopped()) {
      // Exact once the job has ended: blocks written less blocks deleted, per step.
      SoakSample last = samples.get(samples.size() - 1);
      out.printf(
          "blocks left in the store: TieredWindow %,d, TrendAggregate %,d%n",
          last.gauges().getOrDefault("tieredBlocks", 0L),
          last.gauges().getOrDefault("trendBlocks", 0L));
    }
    draw(samples);
    try {
      // A job that ended by itself drained its state: its last reading is not the run's shape.
      List<SoakSample> running =
          outcome.stopped() ? samples : samples.subList(0, samples.size() - 1);
      SoakVerdict verdict =
          SoakVerdict.judge(running, RUN_TO_WARM_UP, TOLERANCE, SoakGauges.reportedOnly(running));
      out.println("verdict: " + verdict.line());
    } catch (IllegalArgumentException e) {
      out.println("verdict: none, " + e.getMessage());
    }
    out.flush();
    return outcome.state() == org.apache.beam.sdk.PipelineResult.State.FAILED ? 1 : 0;
  }

  private static void atLeast(String flag, Duration value, Duration min) {
    if (value.isShorterThan(min)) {
      throw new EventideCli.UsageException(
          flag
              + " must be at least "
              + DurationConverter.format(min)
              + ", but was "
              + DurationConverter.format(value));
    }
  }

  /** The repository this command runs from: three levels above its classes or jar. */
  private static Path repository() {
    try {
      Path code =
          Path.of(
              BenchSoakCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return code.getParent().getParent().getParent();
    } catch (java.net.URISyntaxException | RuntimeException e) {
      throw new EventideCli.UsageException(
          "--start-cluster runs bin/flink-cluster of the repository, which this command cannot"
              + " find: "
              + e);
    }
  }

  /** The default runner: embedded Flink, as runner-configs/flink-embedded.conf has it. */
  private static RunnerOptions embeddedFlink() {
    RunnerOptions embedded = new RunnerOptions();
    embedded.flinkMaster = "[local]";
    return embedded;
  }

  /** The columns of a row: the state gauges, in {@link SoakGauges} order. */
  private static final List<String> GAUGES =
      SoakGauges.GAUGES.stream().map(SoakGauges.Gauge::label).toList();

  private static String header() {
    StringBuilder line =
        new StringBuilder(String.format("%8s %14s %20s", "seconds", "events", "event time"));
    for (String gauge : GAUGES) {
      line.append(String.format(" %14s", gauge));
    }
    line.append(
        String.format(
            " %12s %12s %10s %14s %14s",
            "storeBlocks", "storeMB", "heapMB", "checkpointMB", "liveStateMB"));
    for (String step : SoakGauges.LAGGING_STEPS) {
      line.append(String.format(" %16s", "lag" + step + "(s)"));
    }
    return line.toString();
  }

  private static String row(SoakSample s) {
    StringBuilder line =
        new StringBuilder(
            String.format(
                "%8.0f %,14d %20s",
                s.seconds(), s.events(), s.eventTime().toString().substring(0, 19)));
    for (String gauge : GAUGES) {
      line.append(String.format(" %,14d", s.gauges().getOrDefault(gauge, 0L)));
    }
    line.append(
        String.format(
            " %12s %12s %10s %14s %14s",
            s.storeBlocks() < 0 ? "-" : String.format("%,d", s.storeBlocks()),
            megabytes(s.storeBytes()),
            megabytes(s.heapAfterGc()),
            megabytes(s.checkpointBytes()),
            megabytes(s.checkpointLiveBytes())));
    for (String step : SoakGauges.LAGGING_STEPS) {
      Long lag = s.watermarkLags().get(step);
      line.append(String.format(" %16s", lag == null ? "-" : String.format("%.0f", lag / 1e3)));
    }
    return line.toString();
  }

  private static String megabytes(long bytes) {
    return bytes < 0 ? "-" : String.format("%.1f", bytes / 1e6);
  }

  /** One chart of the gauges and one of the heap, store and checkpoint, against event time. */
  private void draw(List<SoakSample> samples) throws java.io.IOException {
    Map<String, XYSeries> gauges = new LinkedHashMap<>();
    GAUGES.forEach(g -> gauges.put(g, new XYSeries(g)));
    XYSeries heap = new XYSeries("heap after GC (MB)");
    XYSeries store = new XYSeries("block store (MB)");
    XYSeries checkpoint = new XYSeries("last checkpoint's files (MB)");
    XYSeries live = new XYSeries("last checkpoint's live state (MB)");
    long start = SoakConfig.START.getMillis();
    for (SoakSample s : samples) {
      double days = (s.eventTime().getMillis() - start) / 86_400_000.0;
      for (String g : GAUGES) {
        gauges.get(g).add(days, s.gauges().getOrDefault(g, 0L));
      }
      if (s.heapAfterGc() >= 0) {
        heap.add(days, s.heapAfterGc() / 1e6);
      }
      if (s.storeBytes() >= 0) {
        store.add(days, s.storeBytes() / 1e6);
      }
      if (s.checkpointBytes() >= 0) {
        checkpoint.add(days, s.checkpointBytes() / 1e6);
      }
      if (s.checkpointLiveBytes() >= 0) {
        live.add(days, s.checkpointLiveBytes() / 1e6);
      }
    }
    XYSeriesCollection state = new XYSeriesCollection();
    gauges.values().forEach(state::addSeries);
    Charts.lines(
        charts.chart("soak-state.png"),
        "State held per step (keys, windows)",
        "event time (days)",
        "held",
        state);
    XYSeriesCollection memory = new XYSeriesCollection();
    for (XYSeries series : List.of(heap, store, checkpoint, live)) {
      if (series.getItemCount() > 0) {
        memory.addSeries(series);
      }
    }
    if (memory.getSeriesCount() > 0) {
      Charts.lines(
          charts.chart("soak-memory.png"),
          "Heap, block store and checkpoint",
          "event time (days)",
          "MB",
          memory);
    }
  }
}
