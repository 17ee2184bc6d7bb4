package dev.eventide.pipelines.soak;

import dev.eventide.generators.LateEventGenerator;
import dev.eventide.pipelines.bench.HeapAfterGc;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptions;

/**
 * Runs the soak job and reads it every period while it runs. The DirectRunner reports Beam's
 * metrics live. The Flink runner's result does not (in attached mode it returns at the end; in
 * detached mode its accumulators stay empty while embedded Flink runs), so on Flink the readings
 * come from the cluster's REST API ({@link FlinkRest}), which embedded Flink serves too once its
 * configuration names a port; the job's own result gives the last reading when it ends by itself.
 */
public final class SoakRun {
  private final SoakConfig config;
  private final PipelineOptions options;

  /** A run of {@code config} with {@code options}. */
  public SoakRun(SoakConfig config, PipelineOptions options) {
    this.config = config;
    this.options = options;
  }

  /**
   * What a run saw: its samples, its job's last state, whether the run stopped it, and the error
   * that failed it, if any.
   */
  public record Outcome(
      List<SoakSample> samples, PipelineResult.State state, boolean stopped, String failure) {}

  /**
   * Starts the job, takes a sample every {@code period} and hands it to {@code listener}, and stops
   * the job after {@code limit} unless it ended before (its input ran out); a last sample follows
   * the end.
   */
  public Outcome run(
      java.time.Duration period, java.time.Duration limit, Consumer<SoakSample> listener)
      throws IOException, InterruptedException {
    AtomicLong heap = new AtomicLong(-1);
    if (inProcess(options)) {
      HeapAfterGc.watch(heap::set);
    }
    return options.getRunner().getSimpleName().equals("DirectRunner")
        ? runDirect(period, limit, listener, heap)
        : runFlink(period, limit, listener, heap);
  }

  private Outcome runDirect(
      java.time.Duration period,
      java.time.Duration limit,
      Consumer<SoakSample> listener,
      AtomicLong heap) {
    options.as(DirectOptions.class).setBlockOnRun(false);
    Pipeline pipeline = Pipeline.create(options);
    SoakPipeline.addTo(pipeline, config);
    Clock clock = new Clock(config);
    PipelineResult result = pipeline.run();
    List<SoakSample> samples = new ArrayList<>();
    boolean stopped = false;
    while (true) {
      PipelineResult.State state =
          result.waitUntilFinish(org.joda.time.Duration.millis(period.toMillis()));
      boolean ended = state != null && state.isTerminal();
      if (!ended && clock.elapsed(limit)) {
        try {
          result.cancel();
        } catch (IOException e) {
          throw new IllegalStateException("could not stop the soak job: " + e.getMessage(), e);
        }
        stopped = true;
        ended = true;
      }
      SoakSample sample =
          clock.sample(
              SoakGauges.events(result), SoakGauges.read(result), heap.get(), -1, -1, Map.of());
      samples.add(sample);
      listener.accept(sample);
      if (ended) {
        return new Outcome(samples, result.getState(), stopped, null);
      }
    }
  }

  private Outcome runFlink(
      java.time.Duration period,
      java.time.Duration limit,
      Consumer<SoakSample> listener,
      AtomicLong heap)
      throws IOException, InterruptedException {
    FlinkPipelineOptions flink = options.as(FlinkPipelineOptions.class);
    String rest;
    if (inProcess(options)) {
      int port = freePort();
      flink.setFlinkConfDir(restConfiguration(port).toString());
      rest = "127.0.0.1:" + port;
    } else {
      rest = flink.getFlinkMaster();
    }
    FlinkRest api = new FlinkRest(rest, options.getJobName());
    Pipeline pipeline = Pipeline.create(options);
    SoakPipeline.addTo(pipeline, config);
    LiveCheckpoint live = LiveCheckpoint.of(flink, pipeline);
    Clock clock = new Clock(config);
    CompletableFuture<PipelineResult> job =
        CompletableFuture.supplyAsync(
            () -> {
              PipelineResult result = pipeline.run();
              result.waitUntilFinish();
              return result;
            });
    List<SoakSample> samples = new ArrayList<>();
    boolean stopped = false;
    while (true) {
      try {
        PipelineResult result = job.get(period.toMillis(), TimeUnit.MILLISECONDS);
        SoakSample last =
            clock.sample(
                SoakGauges.events(result),
                SoakGauges.read(result),
                heap.get(),
                samples.isEmpty() ? -1 : samples.get(samples.size() - 1).checkpointBytes(),
                samples.isEmpty() ? -1 : samples.get(samples.size() - 1).checkpointLiveBytes(),
                Map.of());
        samples.add(last);
        listener.accept(last);
        return new Outcome(samples, result.getState(), stopped, null);
      } catch (TimeoutException running) {
        // Still running: read it through the REST API.
      } catch (ExecutionException e) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        return new Outcome(
            samples,
            stopped ? PipelineResult.State.CANCELLED : PipelineResult.State.FAILED,
            stopped,
            stopped ? null : String.valueOf(cause));
      }
      if (stopped) {
        continue;
      }
      try {
        FlinkRest.Reading reading = api.read();
        if (reading != null) {
          SoakSample sample =
              clock.sample(
                  SoakGauges.events(reading),
                  SoakGauges.read(reading),
                  heap.get(),
                  reading.checkpointBytes(),
                  live == null ? -1 : live.bytes(api.jobId()),
                  SoakGauges.lags(reading));
          samples.add(sample);
          listener.accept(sample);
        }
      } catch (IOException e) {
        // The cluster did not answer this time (a job starting or ending): the next period tries.
      }
      if (clock.elapsed(limit)) {
        api.cancel();
        stopped = true;
      }
    }
  }

  /** The run's wall clock, the event time its source has reached, and its store's size. */
  private static final class Clock {
    private final LateEventGenerator generator;
    private final String store;
    private final long start = System.nanoTime();

    Clock(SoakConfig config) {
      this.generator = config.generator();
      this.store = config.storeUri();
    }

    boolean elapsed(java.time.Duration limit) {
      return System.nanoTime() - start >= limit.toNanos();
    }

    SoakSample sample(
        long events,
        Map<String, Long> gauges,
        long heap,
        long checkpointBytes,
        long checkpointLiveBytes,
        Map<String, Long> lags) {
      long[] size = StoreSize.countable(store) ? StoreSize.of(store) : new long[] {-1, -1};
      return new SoakSample(
          (System.nanoTime() - start) / 1e9,
          events,
          generator.arrivalTime(Math.max(0, events - 1)),
          gauges,
          heap,
          checkpointBytes,
          checkpointLiveBytes,
          size[0],
          size[1],
          lags);
    }
  }

  /**
   * The live bytes of a job's latest checkpoint, read from its files ({@link CheckpointEntries})
   * when Flink keeps RocksDB state with checkpoints on a path of this machine; read again only when
   * a newer checkpoint has completed.
   */
  private static final class LiveCheckpoint {
    private final Path storage;
    private final Pipeline pipeline;
    private long read = -1;
    private long bytes = -1;
    private boolean unreadable;

    private LiveCheckpoint(Path storage, Pipeline pipeline) {
      this.storage = storage;
      this.pipeline = pipeline;
    }

    static LiveCheckpoint of(FlinkPipelineOptions options, Pipeline pipeline) {
      String path = options.getStateBackendStoragePath();
      if (!"rocksdb".equalsIgnoreCase(options.getStateBackend())
          || path == null
          || !path.startsWith("file:")) {
        return null;
      }
      return new LiveCheckpoint(Path.of(java.net.URI.create(path)), pipeline);
    }

    long bytes(String jobId) {
      if (jobId == null || unreadable) {
        return bytes;
      }
      try {
        Path latest = CheckpointEntries.latest(storage, jobId);
        if (latest != null && CheckpointEntries.number(latest) > read) {
          bytes = CheckpointEntries.read(latest, pipeline).liveBytes();
          read = CheckpointEntries.number(latest);
        }
      } catch (IOException e) {
        // A newer checkpoint subsumed this one while it was read (its files went): the next
        // reading reads that one.
      } catch (IllegalArgumentException e) {
        unreadable = true; // not incremental RocksDB checkpoints: the size is all there is
      }
      return bytes;
    }
  }

  /** Whether the job runs in this JVM: the DirectRunner, or Flink embedded. */
  static boolean inProcess(PipelineOptions options) {
    if (!options.getRunner().getSimpleName().startsWith("Flink")) {
      return true;
    }
    String master = options.as(FlinkPipelineOptions.class).getFlinkMaster();
    return master == null || master.equals("[local]") || master.equals("[auto]");
  }

  /**
   * A Flink configuration directory in which embedded Flink serves its REST API on {@code port} of
   * 127.0.0.1, with metrics fresh to the second (the fetcher's interval is 10 s by default).
   */
  static Path restConfiguration(int port) throws IOException {
    Path conf = Files.createTempDirectory("eventide-soak-flink-conf");
    Files.writeString(
        conf.resolve("flink-conf.yaml"),
        "rest.bind-address: 127.0.0.1\nrest.address: 127.0.0.1\nrest.bind-port: "
            + port
            + "\nmetrics.fetcher.update-interval: 1000\n");
    return conf;
  }

  /** A local port nothing listens on now. */
  static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }
}
