package dev.eventide.tiering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LateEventGenerator;
import dev.eventide.generators.LateEventSource;
import dev.eventide.generators.LatenessDistribution;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.tiering.TieredVsNative.Summary;
import dev.eventide.tiering.teststore.TestStoreProvider;
import dev.eventide.tiering.teststore.TestStoreProvider.CrashAfterDeleteStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Flink job with checkpoints whose task fails mid-run: it restarts from the last checkpoint,
 * whose TieredWindow state names blocks written before it, and ends with every window's final
 * result equal to the result of all its events (what an undisturbed run gives).
 */
class TieredWindowCheckpointTest {
  private static final Duration WINDOW = Duration.standardSeconds(10);
  private static final AtomicInteger FAILURES = new AtomicInteger();
  private static final AtomicInteger SEEN = new AtomicInteger();
  private static final Map<String, String> FINAL = new ConcurrentHashMap<>();
  private static final Map<String, List<Long>> DEAD = new ConcurrentHashMap<>();

  @BeforeEach
  void reset() {
    FAILURES.set(0);
    SEEN.set(0);
    FINAL.clear();
    DEAD.clear();
  }

  @TempDir Path blocks;

  /** Fails the task the first time it sees the event that arrives at the given time. */
  private static final class FailOnce extends DoFn<LateEvent, LateEvent> {
    private final Instant arrival;

    FailOnce(Instant arrival) {
      this.arrival = arrival;
    }

    @ProcessElement
    public void process(@Element LateEvent event, OutputReceiver<LateEvent> out) {
      SEEN.incrementAndGet();
      if (event.arrivalTime().equals(arrival) && FAILURES.getAndIncrement() == 0) {
        throw new IllegalStateException("injected task failure at " + arrival);
      }
      out.output(event);
    }
  }

  /** Keeps each window's most complete result. */
  private static final class KeepFinal extends DoFn<KV<Integer, String>, Void> {
    @ProcessElement
    public void process(@Element KV<Integer, String> kv, BoundedWindow window) {
      FINAL.merge(
          kv.getKey() + "@" + window, kv.getValue(), (a, b) -> count(a) >= count(b) ? a : b);
    }
  }

  /** Keeps each window's dead letters. */
  private static final class KeepDead extends DoFn<DeadLetter<Integer, Long>, Void> {
    @ProcessElement
    public void process(@Element DeadLetter<Integer, Long> d) {
      DEAD.computeIfAbsent(
              d.key() + "@" + d.window(),
              w -> java.util.Collections.synchronizedList(new ArrayList<>()))
          .add(d.value());
    }
  }

  private static long count(String summary) {
    return Long.parseLong(summary.substring(0, summary.indexOf(':')));
  }

  @Test
  void aFailedTaskRecoversFromItsCheckpointWithTheSameFinalResults() {
    runAndFailOnce(false);
  }

  /**
   * The same behind the lateness gate, with predictive cleanup learning and dead letters: the
   * gate's model and schedule come back from the checkpoint with the windows, and each window's
   * final result and dead letters together hold every event.
   */
  @Test
  void withPredictiveCleanupEveryEventIsInAResultOrADeadLetterAfterRecovery() {
    runAndFailOnce(true);
  }

  private void runAndFailOnce(boolean predictive) {
    // The source holds before the failing event until a checkpoint covers the events before it:
    // the restore is from mid-run on a machine of any speed, with no wall-clock pacing.
    LateEventGenerator events = generator();
    FlinkPipelineOptions options = checkpointedFlink(100L);

    Pipeline p = Pipeline.create(options);
    TieredWindow<Integer, Long, String> window =
        TieredWindow.of(FixedWindows.of(WINDOW), new Summary())
            .withAllowedLateness(WINDOW.multipliedBy(3))
            .withStore(blocks.toUri().toString())
            .withMemoryBucket(0, 1 << 20)
            .withPurgeDelay(Duration.standardMinutes(10));
    PCollection<KV<Integer, Long>> input =
        TieredVsNative.keyed(
            p.apply(LateEventSource.heldUntilCheckpoint(events, UUID.randomUUID().toString(), 449))
                .apply(ParDo.of(new FailOnce(events.arrivalTime(449)))));
    if (predictive) {
      TieredWindow.Result<Integer, Long, String> result =
          input.apply(window.withPredictiveCleanup(0.6, 0.8).withDeadLetters());
      result.results().apply(ParDo.of(new KeepFinal()));
      result.deadLetters().apply(ParDo.of(new KeepDead()));
    } else {
      input.apply(window).apply(ParDo.of(new KeepFinal()));
    }
    PipelineResult result = p.run();
    result.waitUntilFinish();

    assertEquals(
        2, FAILURES.get(), "the task failed once, and saw event 450 again after restoring");
    assertEveryEventIsInAFinalResultOrADeadLetter(events);
    // Flink reports the metrics of a job's last attempt: the windows (and gate keys) restored from
    // the checkpoint were counted by the attempt that failed, and cleared by the last one.
    assertTrue(
        TieringMetrics.counter(result, TieringMetrics.WINDOWS_HOLDING_STATE) < 0,
        "windows created minus windows cleared by the last attempt");
    if (predictive) {
      assertTrue(
          TieringMetrics.counter(result, TieringMetrics.GATE_KEYS_HOLDING_STATE) < 0,
          "gate keys, likewise");
    }
  }

  /**
   * The dangerous order: a worker dies right after a purge deleted a window's blocks, before a
   * checkpoint records the purge, and no purge delay protects them. The job restores a checkpoint
   * in which the window's state still names its blocks, and replays the events after it. Blocks are
   * deleted only once a checkpoint in which their window is cleared has completed, so that
   * checkpoint is the one restored: the job recovers with every window's final result, and the
   * store ends empty.
   */
  @Test
  void aWorkerThatDiesRightAfterAPurgeRecoversAndTheStoreEndsEmpty() {
    LateEventGenerator events = generator();
    FlinkPipelineOptions options = checkpointedFlink(2_000L);
    String store = "test:crash-" + UUID.randomUUID() + "?crashAfterDelete=true";

    Pipeline p = Pipeline.create(options);
    // A checkpoint covers the first 100 events, before any window has expired.
    // Lateness up to the allowed lateness: late events reach the windows until they expire.
    TieredWindow.Result<Integer, Long, String> result =
        TieredVsNative.keyed(
                p.apply(
                    LateEventSource.heldUntilCheckpoint(events, UUID.randomUUID().toString(), 100)))
            .apply(
                TieredWindow.of(FixedWindows.of(WINDOW), new Summary())
                    .withAllowedLateness(WINDOW.multipliedBy(2))
                    .withStore(store)
                    .withMemoryBucket(0, 1 << 20)
                    .withPurgeDelay(Duration.ZERO)
                    .withDeadLetters());
    result.results().apply(ParDo.of(new KeepFinal()));
    result.deadLetters().apply(ParDo.of(new KeepDead()));
    p.run().waitUntilFinish();

    CrashAfterDeleteStore blocks = (CrashAfterDeleteStore) TestStoreProvider.opened(store);
    assertTrue(blocks.crashed(), "the store failed its caller right after a delete");
    assertEveryEventIsInAFinalResultOrADeadLetter(events);
    assertEquals(Set.of(), blocks.held(), "blocks left in the store");
  }

  /** Embedded Flink with a checkpoint every {@code millis}, restarting a failed task twice. */
  private static FlinkPipelineOptions checkpointedFlink(long millis) {
    FlinkPipelineOptions options =
        TieredVsNative.options(TestRunner.FLINK).as(FlinkPipelineOptions.class);
    options.setCheckpointingInterval(millis);
    options.setNumberOfExecutionRetries(2);
    options.setExecutionRetryDelay(100L);
    return options;
  }

  /**
   * Lateness of at most two windows and three allowed: no event is dropped, whatever the timing.
   */
  private static LateEventGenerator generator() {
    return LateEventGenerator.builder()
        .setEvents(600)
        .setEventsPerWindow(40)
        .setWatermarkPeriod(Duration.standardSeconds(5))
        .setKeys(3)
        .setLateFraction(0.5)
        .setLateness(LatenessDistribution.uniform(0, 2))
        .setSeed(9)
        .build();
  }

  private static void assertEveryEventIsInAFinalResultOrADeadLetter(LateEventGenerator events) {
    Map<String, List<Long>> expected = new TreeMap<>();
    for (LateEvent e : events) {
      IntervalWindow w =
          new IntervalWindow(
              e.eventTime().minus(Math.floorMod(e.eventTime().getMillis(), WINDOW.getMillis())),
              WINDOW);
      expected.computeIfAbsent(e.key() + "@" + w, k -> new ArrayList<>()).add(e.value());
    }
    Map<String, String> expectedSummaries = new TreeMap<>();
    expected.forEach((w, values) -> expectedSummaries.put(w, new Summary().apply(0, null, values)));
    Map<String, String> actual = new TreeMap<>();
    for (String w : expected.keySet()) {
      List<Long> values = new ArrayList<>(DEAD.getOrDefault(w, List.of()));
      String result = FINAL.get(w);
      if (result != null) {
        String list = result.substring(result.indexOf('[') + 1, result.length() - 1);
        for (String v : list.isBlank() ? new String[0] : list.split(", ")) {
          values.add(Long.parseLong(v));
        }
      }
      actual.put(w, new Summary().apply(0, null, values));
    }
    assertTrue(expectedSummaries.size() > 20);
    assertEquals(expectedSummaries, actual);
  }
}
