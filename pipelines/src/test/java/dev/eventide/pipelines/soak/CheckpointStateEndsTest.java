package dev.eventide.pipelines.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.generators.LateEventSource;
import dev.eventide.generators.LatenessDistribution;
import dev.eventide.testing.waits.Await;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.runners.flink.FlinkRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A key seen once must not cost memory for ever, counted where no gauge looks: the runner's own
 * state. The soak job runs on embedded Flink with RocksDB state over 10,000 keys that come and go,
 * its source left open after the last event with the watermark a day past every window and its
 * lateness, so that nothing is cleared by the end of the input. Once every step's gauge is 0, a
 * checkpoint taken then holds, in every operator's every state (Beam's timers, watermark holds and
 * pane bookkeeping included), at most a few entries, not one per key.
 */
class CheckpointStateEndsTest {
  private static final int KEYS = 10_000;
  // Per state, what does not grow with the keys: TieredWindow's purge shards, for instance.
  private static final long MOST_ENTRIES = 64;
  // Each wait: several times what it takes on an idle machine (70 s for the whole test).
  private static final java.time.Duration WAIT = java.time.Duration.ofMinutes(6);

  @Test
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  void aCheckpointOnceTheWatermarkHasPassedEverythingHoldsNoStatePerKey(@TempDir Path state)
      throws Exception {
    SoakConfig config =
        new SoakConfig(
            KEYS * 36L / 10,
            1_000,
            Duration.standardMinutes(30),
            Duration.standardMinutes(1),
            100,
            0.2,
            LatenessDistribution.uniform(0, 30),
            Duration.standardHours(1),
            "memory:" + UUID.randomUUID(),
            0,
            46);
    Instant parked =
        SoakConfig.START
            .plus(config.eventTimeSpan())
            .plus(config.allowedLateness())
            .plus(Duration.standardDays(1));

    int port = SoakRun.freePort();
    FlinkPipelineOptions options = PipelineOptionsFactory.as(FlinkPipelineOptions.class);
    options.setRunner(FlinkRunner.class);
    options.setFlinkMaster("[local]");
    options.setStreaming(true);
    options.setParallelism(2);
    options.setJobName("checkpoint-state-ends-" + UUID.randomUUID());
    options.setFlinkConfDir(SoakRun.restConfiguration(port).toString());
    options.setStateBackend("rocksdb");
    options.setStateBackendStoragePath(state.resolve("checkpoints").toUri().toString());
    options.setCheckpointingInterval(1_000L);
    options.setExternalizedCheckpointsEnabled(true);
    options.setRetainExternalizedCheckpointsOnCancellation(true);

    Pipeline pipeline = Pipeline.create(options);
    SoakPipeline.addTo(pipeline, config, LateEventSource.openAfterEnd(config.generator(), parked));
    CompletableFuture<PipelineResult.State> job =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return pipeline.run().waitUntilFinish();
              } catch (RuntimeException cancelled) {
                return PipelineResult.State.CANCELLED;
              }
            });

    FlinkRest api = new FlinkRest("127.0.0.1:" + port, options.getJobName());
    Path checkpoints = state.resolve("checkpoints");
    try {
      Map<String, Long> zero = new LinkedHashMap<>();
      SoakGauges.GAUGES.forEach(g -> zero.put(g.label(), 0L));
      Await.until(
          "every event read, every operator's input watermark at " + parked + ", every gauge 0",
          WAIT,
          () -> {
            if (job.isDone()) {
              throw new AssertionError("the job ended while its source was open: " + job.get());
            }
            return Seen.of(api);
          },
          seen ->
              seen != null
                  && seen.events() == config.events()
                  && seen.leastWatermark() >= parked.getMillis()
                  && seen.gauges().equals(zero));
      // Two checkpoints completed after that: the second began once the first had.
      long after = latestCheckpoint(checkpoints);
      Await.until(
          "two checkpoints after checkpoint " + after,
          WAIT,
          () -> latestCheckpoint(checkpoints),
          n -> n >= after + 2);
    } finally {
      api.cancel();
    }
    job.get(2, TimeUnit.MINUTES);

    Path checkpoint = latestCheckpointDirectory(state.resolve("checkpoints"));
    CheckpointEntries entries = CheckpointEntries.read(checkpoint, pipeline);
    // The reader found the steps' states (an empty checkpoint would pass the bound vacuously).
    Set<String> operators = new TreeSet<>();
    entries.entries().keySet().forEach(s -> operators.add(s.operator()));
    Map<String, Long> tooMany =
        entries.entries().entrySet().stream()
            .filter(e -> e.getValue() > MOST_ENTRIES)
            .collect(
                Collectors.toMap(
                    e -> e.getKey().toString(),
                    Map.Entry::getValue,
                    (a, b) -> a,
                    LinkedHashMap::new));
    assertEquals(
        Map.of(),
        tooMany,
        "states holding more than "
            + MOST_ENTRIES
            + " entries after "
            + KEYS
            + " keys came and went (pending timers by id: "
            + entries.timers()
            + ") in "
            + checkpoint);
    for (String step :
        List.of(
            SoakPipeline.TIERED_WINDOW,
            SoakPipeline.TREND_AGGREGATE,
            SoakPipeline.FILTER,
            SoakPipeline.JOIN)) {
      assertTrue(
          operators.stream().anyMatch(o -> o.startsWith(step + "/")),
          step + "'s states in the checkpoint, whose operators are " + operators);
    }
  }

  /** What a reading of the REST API shows: events read, the least input watermark, the gauges. */
  private record Seen(long events, long leastWatermark, Map<String, Long> gauges) {
    static Seen of(FlinkRest api) throws InterruptedException {
      FlinkRest.Reading reading;
      try {
        reading = api.read();
      } catch (IOException notYet) {
        return null;
      }
      if (reading == null) {
        return null;
      }
      long least =
          reading.least().entrySet().stream()
              .filter(m -> m.getKey().endsWith(".currentInputWatermark"))
              .mapToLong(m -> Math.round(m.getValue()))
              .min()
              .orElse(Long.MIN_VALUE);
      return new Seen(SoakGauges.events(reading), least, SoakGauges.read(reading));
    }

    @Override
    public String toString() {
      return "events "
          + events
          + ", least watermark "
          + new Instant(leastWatermark)
          + ", "
          + gauges;
    }
  }

  /** The number of the latest completed checkpoint under {@code root}, or -1. */
  private static long latestCheckpoint(Path root) throws IOException {
    Path latest = latestCheckpointDirectory(root);
    return latest == null ? -1 : CheckpointEntries.number(latest);
  }

  /** The latest completed checkpoint of the one job that checkpoints under {@code root}. */
  private static Path latestCheckpointDirectory(Path root) throws IOException {
    if (!Files.isDirectory(root)) {
      return null;
    }
    try (Stream<Path> jobs = Files.list(root)) {
      Path job = jobs.findFirst().orElse(null);
      return job == null ? null : CheckpointEntries.latest(root, job.getFileName().toString());
    }
  }
}
