package dev.eventide.trends.beam;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LateEventGenerator;
import dev.eventide.generators.LateEventSource;
import dev.eventide.testing.streams.GatedReplay;
import dev.eventide.trends.Event;
import dev.eventide.trends.RandomWorkloads;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.engine.ChangeableTrendEngine;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.query.Workload;
import dev.eventide.trends.query.WorkloadChange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.runners.flink.FlinkRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpointed job on embedded Flink whose task fails in the middle of the stream restarts from
 * its last checkpoint (TrendAggregate's state restored from its coders) and ends with the same
 * results as the in-process core, which an undisturbed run also gives; and a key cleared before the
 * checkpoint judges a replayed event as before the failure, although the restored job's input
 * watermark starts again at the start of time.
 */
class TrendAggregateRecoveryTest {
  private static final AtomicBoolean FAILED = new AtomicBoolean();

  private static final int EVENTS = 12_000;

  /**
   * In time order (no late events, so the results do not depend on timing): an unbounded source
   * with checkpoint marks, which Flink restores exactly once (a bounded source in a streaming job
   * is read again from its start after a failure).
   */
  private static final LateEventGenerator GENERATOR =
      LateEventGenerator.builder()
          .setStart(new Instant(0))
          .setWindow(org.joda.time.Duration.millis(200))
          .setEventsPerWindow(200)
          .setEvents(EVENTS)
          .setLateFraction(0)
          .setKeys(2)
          .setMaxValue(20)
          .setSeed(5)
          .build();

  private static Event toEvent(LateEvent e) {
    String type = e.value() % 4 == 0 ? (e.value() % 8 == 0 ? "A" : "C") : "B";
    return Event.of(type, e.eventTime().getMillis(), "a", e.value() % 4, "g", e.key());
  }

  @TempDir Path temp;

  @Test
  void aTaskThatFailsMidRunRecoversFromItsCheckpointWithTheSameResults() throws Exception {
    Workload workload = Workload.parse(new RandomWorkloads(11).sharableWorkload(4));
    List<Event> events = new ArrayList<>();
    for (LateEvent e : GENERATOR.generate()) {
      events.add(toEvent(e));
    }
    events.sort(java.util.Comparator.comparingLong(Event::time));
    // Windows of 300 events are beyond the brute force; the core equals it on smaller ones.
    Map<String, String> expected = Panes.expected(Engines.UNSHARED.evaluate(workload, events));

    FAILED.set(true);
    assertSame(expected, run(workload, List.of(), temp.resolve("undisturbed")), "undisturbed");
    FAILED.set(false);
    assertSame(expected, run(workload, List.of(), temp.resolve("failed")), "recovered");
    assertTrue(FAILED.get(), "the failure was injected");
    try (var files = Files.walk(temp.resolve("blocks"))) {
      assertEquals(
          List.of(),
          files.filter(f -> f.toString().endsWith(".blk")).toList(),
          "the restored run deleted every block, its own and those its first attempt wrote");
    }
  }

  /**
   * The workload changes three times (a removal, an addition that shares the others' Kleene type, a
   * replacement under one name), and the task fails mid-stream: the restored job evaluates every
   * version as the undisturbed one does, and both equal the in-process core with the same changes.
   */
  @Test
  void aJobWhoseWorkloadChangesRecoversFromItsCheckpointWithTheSameResults() throws Exception {
    Workload workload = Workload.parse(new RandomWorkloads(11).sharableWorkload(4));
    String more = new RandomWorkloads(12).sharableWorkload(2);
    List<WorkloadChange> changes =
        List.of(
            WorkloadChange.remove(3_000, "q1"),
            WorkloadChange.add(
                6_000, more.replace("QUERY q0", "QUERY q4").replace("QUERY q1", "QUERY q5")),
            WorkloadChange.remove(9_000, "q0"),
            WorkloadChange.add(9_000, more.replace("QUERY q1", "QUERY q6")));
    List<Event> events = new ArrayList<>();
    for (LateEvent e : GENERATOR.generate()) {
      events.add(toEvent(e));
    }
    events.sort(java.util.Comparator.comparingLong(Event::time));
    List<TrendResult> core = new ArrayList<>();
    ChangeableTrendEngine engine = Engines.UNSHARED.createChangeable(workload, core::add);
    int next = 0;
    for (Event e : events) {
      while (next < changes.size() && changes.get(next).time() <= e.time()) {
        engine.change(changes.get(next++));
      }
      engine.process(e);
    }
    engine.finish();
    Map<String, String> expected = Panes.expected(core);
    assertTrue(
        core.stream().anyMatch(r -> r.query().equals("q4"))
            && core.stream().anyMatch(r -> r.query().equals("q0") && r.windowStart() >= 9_000),
        "the added and replaced queries have results");

    Path dir = temp.resolve("changes");
    FAILED.set(true);
    assertSame(expected, run(workload, changes, dir.resolve("undisturbed")), "undisturbed");
    FAILED.set(false);
    assertSame(expected, run(workload, changes, dir.resolve("failed")), "recovered");
    assertTrue(FAILED.get(), "the failure was injected");

    // The same changes sent while the job runs, the task failing between two of them.
    Path live = temp.resolve("live");
    FAILED.set(true);
    assertSame(expected, runLive(workload, changes, live.resolve("undisturbed")), "undisturbed");
    FAILED.set(false);
    assertSame(expected, runLive(workload, changes, live.resolve("failed")), "recovered live");
    assertTrue(FAILED.get(), "the failure was injected");
  }

  private static final java.util.Queue<String> RESTORED_RESULTS =
      new java.util.concurrent.ConcurrentLinkedQueue<>();
  private static final java.util.Queue<Long> RESTORED_DEAD_LETTERS =
      new java.util.concurrent.ConcurrentLinkedQueue<>();

  /**
   * The order of issue 48, item 7, without allowed lateness: group 7's window [0, 10 s) fires with
   * three events (COUNT 7) and the group's state is cleared; the watermark reaches 40 s and a
   * checkpoint completes; a straggler of group 7 at 5 s then fails the task before it reaches the
   * aggregation. The job restores that checkpoint, whose input watermark starts again at the start
   * of time, and reads the straggler again before any watermark: judged by what the cleared key
   * remembers (the watermark at its clearing), it is a dead letter, as it is in a run without the
   * failure, and [0, 10 s) keeps its one pane. Without the memory, the straggler opened the window
   * again: a second first pane, COUNT 1.
   */
  @Test
  void aClearedKeyJudgesAnEventReplayedAfterARestoreAsBeforeTheFailure() {
    for (boolean fail : List.of(false, true)) {
      RESTORED_RESULTS.clear();
      RESTORED_DEAD_LETTERS.clear();
      STRAGGLER_FAILED.set(!fail);
      GatedReplay<Event> replay =
          GatedReplay.builder(EventCoder.of())
              .add(b(1_000, 7), new Instant(1_000))
              .add(b(2_000, 7), new Instant(2_000))
              .add(b(3_000, 7), new Instant(3_000))
              .advanceWatermarkTo(new Instant(20_000)) // [0, 10 s) fired and expired: cleared
              .advanceWatermarkTo(new Instant(40_000))
              .holdUntilCheckpointed()
              .add(b(STRAGGLER, 7), new Instant(STRAGGLER))
              .add(b(41_000, 8), new Instant(41_000))
              .build();
      Pipeline p = Pipeline.create(checkpointedFlink(1));
      TrendAggregate.Result out =
          p.apply(replay)
              .apply(ParDo.of(new FailOnStraggler()))
              .setCoder(EventCoder.of())
              .apply(TrendAggregate.of(TrendAggregateStateEndsTest.WORKLOAD));
      out.results().apply(ParDo.of(new CollectResults()));
      out.deadLetters().apply(ParDo.of(new CollectDeadLetters()));
      PipelineResult result = p.run();
      assertEquals(PipelineResult.State.DONE, result.waitUntilFinish());
      String run = fail ? "restored run" : "undisturbed run";
      assertTrue(STRAGGLER_FAILED.get(), "the failure was injected");
      assertEquals(
          List.of("7 [0, 10000) pane 0: 7"),
          RESTORED_RESULTS.stream().filter(r -> r.startsWith("7 [0,")).toList(),
          run + ": group 7's first window");
      assertTrue(
          RESTORED_DEAD_LETTERS.contains(STRAGGLER),
          run + ": the straggler is a dead letter: " + RESTORED_DEAD_LETTERS);
      assertEquals(
          List.of("8 [40000, 50000) pane 0: 1"),
          RESTORED_RESULTS.stream().filter(r -> r.startsWith("8 ")).toList(),
          run + ": group 8");
    }
  }

  private static final long STRAGGLER = 5_000;
  private static final AtomicBoolean STRAGGLER_FAILED = new AtomicBoolean();

  private static Event b(long time, int sensor) {
    return Event.of("B", time, "sensor", sensor);
  }

  /** Throws on the straggler once, in the run that is to fail. */
  private static final class FailOnStraggler extends DoFn<Event, Event> {
    @ProcessElement
    public void process(@Element Event e, OutputReceiver<Event> out) {
      if (e.time() == STRAGGLER && STRAGGLER_FAILED.compareAndSet(false, true)) {
        throw new IllegalStateException("a task failure injected by the test");
      }
      out.output(e);
    }
  }

  private static final class CollectResults extends DoFn<TrendResult, Void> {
    @ProcessElement
    public void process(@Element TrendResult r, PaneInfo pane) {
      RESTORED_RESULTS.add(
          r.group().get("sensor")
              + " ["
              + r.windowStart()
              + ", "
              + r.windowEnd()
              + ") pane "
              + pane.getIndex()
              + ": "
              + r.value());
    }
  }

  private static final class CollectDeadLetters extends DoFn<DeadLetter, Void> {
    @ProcessElement
    public void process(@Element DeadLetter d) {
      RESTORED_DEAD_LETTERS.add(d.event().time());
    }
  }

  private static void assertSame(
      Map<String, String> expected, Map<String, String> actual, String run) {
    List<String> differences = new ArrayList<>();
    for (String k : expected.keySet()) {
      if (!java.util.Objects.equals(expected.get(k), actual.get(k))) {
        differences.add(k + ": " + expected.get(k) + " but " + actual.get(k));
      }
    }
    for (String k : actual.keySet()) {
      if (!expected.containsKey(k)) {
        differences.add(k + ": none but " + actual.get(k));
      }
    }
    assertTrue(
        differences.isEmpty(),
        () ->
            run
                + " run: "
                + differences.size()
                + " of "
                + expected.size()
                + " results differ, e.g. "
                + differences.subList(0, Math.min(5, differences.size())));
  }

  private static Map<String, String> run(Workload workload, List<WorkloadChange> changes, Path out)
      throws IOException {
    return run(workload, out, p -> TrendAggregate.of(workload).withWorkloadChanges(changes));
  }

  /** The changes come from a source of their own, each at its time, while the events flow. */
  private static Map<String, String> runLive(
      Workload workload, List<WorkloadChange> changes, Path out) throws IOException {
    String versions = out.resolveSibling("versions").toUri().toString();
    return run(
        workload,
        out,
        p ->
            TrendAggregate.of(workload)
                .withWorkloadChanges(
                    p.apply(
                        "Changes",
                        Create.timestamped(
                            changes.stream()
                                .map(c -> TimestampedValue.of(c, new Instant(c.time())))
                                .toList())),
                    versions));
  }

  private static Map<String, String> run(
      Workload workload, Path out, java.util.function.Function<Pipeline, TrendAggregate> aggregate)
      throws IOException {
    Pipeline p = Pipeline.create(checkpointedFlink(2));
    p.apply(LateEventSource.read(GENERATOR))
        .apply(
            MapElements.into(TypeDescriptor.of(Event.class))
                .via(TrendAggregateRecoveryTest::toEvent))
        .setCoder(EventCoder.of())
        .apply(ParDo.of(new FailOnce(EVENTS / 3)))
        .setCoder(EventCoder.of())
        // With lateness, every advanced event is kept, here in blocks of 50: the restored run
        // finds the blocks its checkpoint names and deletes them as their windows expire.
        .apply(
            aggregate
                .apply(p)
                .withAllowedLateness(org.joda.time.Duration.millis(100))
                .withRetainedEventsIn(out.resolveSibling("blocks").toUri().toString(), 50)
                .withPurgeDelay(org.joda.time.Duration.millis(1000)))
        .results()
        .apply(ParDo.of(new WriteLines(out.toString())));
    PipelineResult result = p.run();
    assertEquals(PipelineResult.State.DONE, result.waitUntilFinish());
    assertTrue(TrendMetrics.counter(result, "blocksWritten") > 0, "blocks written");
    assertTrue(TrendMetrics.counter(result, "blocksDeleted") > 0, "blocks deleted");
    // A restarted run may write a result again: keep each result's highest pane.
    Map<String, String> last = new HashMap<>();
    Map<String, Long> index = new HashMap<>();
    try (var files = Files.list(out)) {
      for (Path f : files.toList()) {
        for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
          String[] parts = line.split("\t", -1);
          long pane = Long.parseLong(parts[2]);
          if (pane >= index.getOrDefault(parts[0], -1L)) {
            index.put(parts[0], pane);
            last.put(parts[0], parts[1].equals("null") ? null : parts[1]);
          }
        }
      }
    }
    return last;
  }

  /** Embedded Flink checkpointing every 50 ms, restarting a failed job from its checkpoint. */
  private static FlinkPipelineOptions checkpointedFlink(int parallelism) {
    FlinkPipelineOptions options = PipelineOptionsFactory.as(FlinkPipelineOptions.class);
    options.setRunner(FlinkRunner.class);
    options.setFlinkMaster("[local]");
    options.setStreaming(true);
    options.setParallelism(parallelism);
    options.setCheckpointingInterval(50L);
    options.setNumberOfExecutionRetries(3);
    options.setExecutionRetryDelay(100L);
    options.setShutdownSourcesAfterIdleMs(0L);
    return options;
  }

  /** Throws once, in the first run of the pipeline, after {@code after} elements of one task. */
  private static final class FailOnce extends DoFn<Event, Event> {
    private final long after;
    private transient long seen;

    FailOnce(long after) {
      this.after = after;
    }

    @ProcessElement
    public void process(@Element Event e, OutputReceiver<Event> out) {
      if (++seen == after && FAILED.compareAndSet(false, true)) {
        throw new IllegalStateException("a task failure injected by the test");
      }
      out.output(e);
    }
  }

  private static final class WriteLines extends DoFn<TrendResult, Void> {
    private final String directory;
    private transient List<String> lines;

    WriteLines(String directory) {
      this.directory = directory;
    }

    @StartBundle
    public void start() {
      lines = new ArrayList<>();
    }

    @ProcessElement
    public void process(@Element TrendResult r, PaneInfo pane) {
      lines.add(Panes.key(r) + "\t" + r.value() + "\t" + pane.getIndex());
    }

    @FinishBundle
    public void finish() {
      try {
        Path dir = Path.of(directory);
        Files.createDirectories(dir);
        Files.write(dir.resolve(UUID.randomUUID() + ".txt"), lines, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
