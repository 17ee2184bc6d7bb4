package dev.eventide.trends.beam;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.testing.differential.Seeds;
import dev.eventide.testing.runners.OnEachRunner;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.trends.BruteForce;
import dev.eventide.trends.Event;
import dev.eventide.trends.RandomWorkloads;
import dev.eventide.trends.Sharing;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.query.Workload;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * {@link TrendAggregate} against the brute-force enumerator on seeded random workloads and streams,
 * on the DirectRunner and embedded Flink: shuffled arrival, late events within the allowed lateness
 * (their windows re-evaluated in LATE panes) and beyond it (dead letters).
 */
class TrendAggregateTest {
  private static final int SEEDS = Seeds.count(24);

  private static Workload workload(long seed) {
    RandomWorkloads random = new RandomWorkloads(seed);
    return Workload.parse(seed % 2 == 0 ? random.workload(3) : random.sharableWorkload(4));
  }

  private static List<Event> events(long seed) {
    RandomWorkloads random = new RandomWorkloads(seed * 7919 + 1);
    return seed % 2 == 0 ? random.events(30, 60) : random.burstyEvents(40);
  }

  private static List<TimestampedValue<Event>> shuffled(List<Event> events, long seed) {
    List<TimestampedValue<Event>> timestamped = new ArrayList<>();
    for (Event e : events) {
      timestamped.add(TimestampedValue.of(e, new Instant(e.time())));
    }
    Collections.shuffle(timestamped, new Random(seed));
    return timestamped;
  }

  @OnEachRunner(value = TestRunner.FLINK, flinkParallelism = 1)
  void resultsEqualBruteForceOnShuffledStreamsOnOneFlinkSlot(TestPipeline p) {
    resultsEqualBruteForceOnShuffledStreams(p);
  }

  @OnEachRunner(flinkParallelism = 2)
  void resultsEqualBruteForceOnShuffledStreams(TestPipeline p) {
    for (long seed = 0; seed < SEEDS; seed++) {
      Workload workload = workload(seed);
      List<Event> events = events(seed);
      Map<String, String> expected = Panes.expected(BruteForce.evaluate(workload, events));
      Sharing sharing = Sharing.values()[(int) (seed % 3)];
      TrendAggregate.Result out =
          p.apply("Events " + seed, Create.timestamped(shuffled(events, seed)))
              .apply("Aggregate " + seed, TrendAggregate.of(workload).withSharing(sharing));
      long s = seed;
      PAssert.that(Panes.of(out.results(), "Panes " + seed))
          .satisfies(
              lines -> {
                List<Panes.Pane> panes = Panes.parse(lines);
                for (Panes.Pane pane : panes) {
                  assertEquals(PaneInfo.Timing.ON_TIME, pane.timing(), () -> "seed " + s + pane);
                }
                assertEquals(expected, Panes.last(panes), "seed " + s + ", " + sharing);
                assertEquals(expected.size(), panes.size(), "one pane per result, seed " + s);
                return null;
              });
      PAssert.that(out.deadLetters()).empty();
    }
    p.run().waitUntilFinish();
  }

  /**
   * Per seed: the events before time 20 arrive shuffled, except a third of those from time 5 on
   * held back; the watermark passes 20 (the windows that end by then fire); the held-back events
   * arrive, late within the allowed lateness of 15 ms; then the rest; the watermark passes 200, and
   * copies of early events arrive, beyond the lateness. On the DirectRunner, which orders a
   * TestStream's watermark before the elements after it, the on-time panes of windows ending by 20
   * hold exactly the events that were on time, and the beyond-lateness copies are exactly the dead
   * letters. On every runner the last pane of each result equals the brute force over every event
   * not dead-lettered.
   */
  @OnEachRunner(flinkParallelism = 2)
  void lateEventsReEvaluateTheirWindowsAndTooLateOnesAreDeadLetters(
      TestPipeline p, TestRunner runner) throws IOException {
    // Two seeds in three keep their retained events in blocks, with a memory bucket of 0 or 1.
    Path store = Files.createTempDirectory("trend-aggregate-blocks");
    for (long seed = 0; seed < SEEDS; seed++) {
      // Even seeds: queries sharing B+ over bursts; odd: every pattern form, equivalence, NEXT.
      Workload workload =
          Workload.parse(
              seed % 2 == 0
                  ? new RandomWorkloads(seed).sharableWorkload(3)
                  : new RandomWorkloads(seed).workload(3));
      List<Event> events =
          seed % 2 == 0
              ? new RandomWorkloads(seed * 31 + 7).burstyEvents(40)
              : new RandomWorkloads(seed * 31 + 7).events(40, 40);
      Random random = new Random(seed);
      List<Event> onTime = new ArrayList<>();
      List<Event> late = new ArrayList<>();
      List<Event> after = new ArrayList<>();
      for (Event e : events) {
        if (e.time() >= 20) {
          after.add(e);
        } else {
          // From time 5 on, every window holding an event ends after 5 and so accepts it late
          // at watermark 20 (its end - 1 + 15 ms of lateness is not before 20).
          (e.time() >= 5 && random.nextInt(3) == 0 ? late : onTime).add(e);
        }
      }
      List<Event> tooLate = new ArrayList<>();
      for (Event e : onTime.subList(0, Math.min(3, onTime.size()))) {
        tooLate.add(Event.of(e.type(), e.time(), e.attributes()));
      }
      TestStream.Builder<Event> stream = TestStream.create(EventCoder.of());
      stream = add(stream, onTime, seed).advanceWatermarkTo(new Instant(20));
      stream = add(add(stream, late, seed), after, seed).advanceWatermarkTo(new Instant(200));
      stream = add(stream, tooLate, seed);

      Map<String, String> earlyOnTime = new HashMap<>();
      for (TrendResult r : BruteForce.evaluate(workload, onTime)) {
        if (r.windowEnd() <= 20) {
          earlyOnTime.put(Panes.key(r), r.value());
        }
      }
      Set<String> readTypes = new HashSet<>();
      workload.queries().forEach(q -> readTypes.addAll(q.types()));
      boolean exact = runner.honorsTestStreamWatermarks();
      TrendAggregate aggregate =
          TrendAggregate.of(workload).withAllowedLateness(Duration.millis(15));
      if (seed % 3 != 0) {
        aggregate =
            aggregate.withRetainedEventsIn(
                store.resolve("seed-" + seed).toUri().toString(), seed % 3 - 1);
      }
      TrendAggregate.Result out =
          p.apply("Stream " + seed, stream.advanceWatermarkToInfinity())
              .apply("Aggregate " + seed, aggregate);
      PCollection<String> lines = Panes.withDeadLetters(out, String.valueOf(seed));
      long s = seed;
      PAssert.that(lines)
          .satisfies(
              all -> {
                List<String> results = new ArrayList<>();
                Set<Event> deadEvents = new HashSet<>();
                for (String line : all) {
                  if (!line.startsWith("D\t")) {
                    results.add(line);
                    continue;
                  }
                  assertTrue(line.contains("later than the allowed lateness of 15 ms"), line);
                  deadEvents.add(
                      tooLate.stream()
                          .filter(e -> line.startsWith("D\t" + Panes.canonical(e) + "\t"))
                          .findFirst()
                          .orElseThrow(() -> new AssertionError("not too late: " + line)));
                }
                // On Flink a too-late event may be processed before the watermark that makes it so.
                List<Event> aggregated = new ArrayList<>(events);
                tooLate.stream().filter(e -> !deadEvents.contains(e)).forEach(aggregated::add);
                aggregated.sort(Comparator.comparingLong(Event::time));
                Map<String, String> expected =
                    Panes.expected(BruteForce.evaluate(workload, aggregated));
                List<Panes.Pane> panes = Panes.parse(results);
                Map<String, String> last = Panes.last(panes);
                assertEquals(Map.of(), Panes.wrongFinalValues(expected, last), "seed " + s);
                if (exact) {
                  Set<Event> read = new HashSet<>();
                  tooLate.stream().filter(e -> readTypes.contains(e.type())).forEach(read::add);
                  assertEquals(read, deadEvents, "dead letters, seed " + s);
                  Map<String, String> onTimeEarly = new HashMap<>();
                  for (Panes.Pane pane : panes) {
                    String key = pane.key();
                    long end =
                        Long.parseLong(key.substring(key.lastIndexOf(", ") + 2, key.length() - 1));
                    // A window whose events all came late has its first pane ON_TIME too.
                    if (pane.timing() == PaneInfo.Timing.ON_TIME
                        && end <= 20
                        && earlyOnTime.containsKey(key)) {
                      onTimeEarly.put(key, pane.value());
                    }
                  }
                  assertEquals(earlyOnTime, onTimeEarly, "on-time panes, seed " + s);
                }
                return null;
              });
    }
    PipelineResult result = p.run();
    result.waitUntilFinish();
    if (runner.honorsTestStreamWatermarks()) {
      assertTrue(TrendMetrics.counter(result, "lateEvents") > 0);
      assertTrue(TrendMetrics.counter(result, "latePanes") > 0);
      assertTrue(TrendMetrics.counter(result, "deadLetters") > 0);
      assertTrue(TrendMetrics.counter(result, "blocksRead") > 0);
    }
    assertTrue(TrendMetrics.counter(result, "blocksWritten") > 0);
    assertTrue(TrendMetrics.counter(result, "blocksDeleted") > 0);
    try (Stream<Path> files = Files.walk(store)) {
      List<Path> left = files.filter(f -> f.toString().endsWith(".blk")).toList();
      assertEquals(List.of(), left, "blocks left in the store after every window expired");
    } finally {
      try (Stream<Path> files = Files.walk(store)) {
        files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }

  private static TestStream.Builder<Event> add(
      TestStream.Builder<Event> stream, List<Event> events, long seed) {
    if (events.isEmpty()) {
      return stream;
    }
    List<TimestampedValue<Event>> values = shuffled(events, seed);
    return stream.addElements(
        values.get(0), values.subList(1, values.size()).toArray(TimestampedValue[]::new));
  }
}
