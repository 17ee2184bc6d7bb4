package dev.eventide.trends.beam;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.blockstore.BlockStore;
import dev.eventide.blockstore.BlockStores;
import dev.eventide.testing.differential.Seeds;
import dev.eventide.testing.runners.OnEachRunner;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.trends.Event;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.WorkloadSchedules;
import dev.eventide.trends.query.Query;
import dev.eventide.trends.query.Workload;
import dev.eventide.trends.query.WorkloadChange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link TrendAggregate#withWorkloadChanges(PCollection, String)} against brute force: the seeded
 * workloads, schedules and streams of {@link TrendAggregateWorkloadChangesTest}, with each change
 * sent in the same stream as the events, at a random point before the watermark passes its time (so
 * some arrive long before their time, some just before, among events far ahead of them). Each
 * query's final panes equal brute force over the windows it was in force for, nothing is refused or
 * dead, and every key's state ends. {@value #DIRECT} schedules on the DirectRunner, {@value #FLINK}
 * on embedded Flink.
 */
class TrendAggregateLiveChangesTest {
  private static final int DIRECT = 40;
  private static final int FLINK = 8;
  private static final int BATCH = 20;
  private static final long LATENESS = 200;

  /**
   * A seeded case: its events and changes in arrival order, among watermark advances; each arrival
   * is an event's index and the watermark it arrives under.
   */
  record Case(WorkloadSchedules.Case schedule, List<long[]> arrivals, Arrivals script) {

    /**
     * Events delayed by up to 40 ms (less than the allowed lateness of the first test), the changes
     * among them.
     */
    static Case of(long seed) {
      return of(seed, 40, true);
    }

    /**
     * @param changesInStream whether the changes arrive among the events (else in a source of their
     *     own)
     */
    static Case of(long seed, int maxDelay, boolean changesInStream) {
      WorkloadSchedules.Case schedule = WorkloadSchedules.Case.of(seed, 30, 24, 50);
      List<Event> events = schedule.events();
      Random random = new Random(seed * 7_919 + 3);
      // Arrival order: on time, or delayed.
      List<long[]> arrivals = new ArrayList<>();
      for (int i = 0; i < events.size(); i++) {
        long delay = random.nextInt(10) < 7 ? 0 : 1 + random.nextInt(maxDelay);
        arrivals.add(new long[] {events.get(i).time() + delay, i, 0});
      }
      arrivals.sort(Comparator.comparingLong((long[] a) -> a[0]).thenComparingLong(a -> a[1]));
      long watermark = BoundedWindow.TIMESTAMP_MIN_VALUE.getMillis();
      for (long[] a : arrivals) {
        if (random.nextInt(4) == 0) {
          watermark = Math.max(watermark, a[0] - random.nextInt(5));
        }
        a[2] = watermark;
      }
      // Each change goes in before an arrival at which the watermark is still at or before its
      // time: a random one of those.
      TreeMap<Integer, List<WorkloadChange>> changesBefore = new TreeMap<>();
      for (WorkloadChange c : changesInStream ? schedule.applied() : List.<WorkloadChange>of()) {
        int last = 0;
        while (last < arrivals.size() && arrivals.get(last)[2] <= c.time()) {
          last++;
        }
        changesBefore.computeIfAbsent(random.nextInt(last + 1), k -> new ArrayList<>()).add(c);
      }
      Arrivals script = new Arrivals();
      for (int i = 0; i <= arrivals.size(); i++) {
        changesBefore.getOrDefault(i, List.of()).forEach(script::add);
        if (i == arrivals.size()) {
          break;
        }
        long[] a = arrivals.get(i);
        if (a[2] > BoundedWindow.TIMESTAMP_MIN_VALUE.getMillis()) {
          script.advanceWatermarkTo(new Instant(a[2]));
        }
        script.add(events.get((int) a[1]));
      }
      return new Case(schedule, arrivals, script);
    }

    /**
     * Each result's final value: brute force over the windows in force and the events each window
     * admitted, those that arrived under a watermark not after its end − 1 ms plus the lateness
     * (the windows that admit the same events share one brute-force run).
     */
    Map<String, String> expectedFinalValues(long lateness) {
      TreeSet<Long> levels = new TreeSet<>();
      arrivals.forEach(a -> levels.add(a[2]));
      Map<String, String> expected = new HashMap<>();
      for (long level : levels) {
        List<Event> admitted = new ArrayList<>();
        for (long[] a : arrivals) {
          if (a[2] <= level) {
            admitted.add(schedule.events().get((int) a[1]));
          }
        }
        admitted.sort(Comparator.comparingLong(Event::time));
        for (TrendResult r : schedule.expected(admitted)) {
          Long windowLevel = levels.floor(r.windowEnd() - 1 + lateness);
          if (windowLevel != null && windowLevel == level) {
            expected.put(Panes.key(r), r.value());
          }
        }
      }
      return expected;
    }
  }

  @OnEachRunner(flinkParallelism = 1)
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  void everyQuerysFinalPanesAreBruteForceOverItsWindowsInForce(TestPipeline p, TestRunner runner)
      throws IOException {
    int cases = Seeds.count(runner == TestRunner.DIRECT ? DIRECT : FLINK);
    long changed = 0;
    for (long first = 0; first < cases; first += BATCH) {
      Pipeline pipeline = first == 0 ? p : Pipeline.create(runner.options(1));
      TestRunner.skipImmutabilityCheck(pipeline);
      for (long seed = first; seed < Math.min(cases, first + BATCH); seed++) {
        Case c = Case.of(seed);
        WorkloadSchedules.Case schedule = c.schedule();
        changed += schedule.applied().isEmpty() ? 0 : 1;
        Arrivals.Read read = c.script().read(pipeline.begin(), runner, " " + seed);
        TrendAggregate.Result out =
            read.events()
                .apply(
                    "Aggregate " + seed,
                    TrendAggregate.of(schedule.initial())
                        .withWorkloadChanges(read.changes(), store(runner, seed))
                        .withAllowedLateness(Duration.millis(LATENESS)));
        Map<String, String> expected = Panes.expected(schedule.expected());
        String what =
            "seed "
                + seed
                + ", changes "
                + schedule.applied().stream().map(WorkloadChange::describe).toList();
        PAssert.that(Panes.of(out.results(), "Lines " + seed))
            .satisfies(
                lines -> {
                  Map<String, String> wrong =
                      Panes.wrongFinalValues(expected, Panes.last(Panes.parse(lines)));
                  assertEquals(Map.of(), wrong, what);
                  return null;
                });
        PAssert.that(out.deadLetters()).empty();
        PAssert.that(out.refusedChanges()).empty();
      }
      PipelineResult result = pipeline.run();
      result.waitUntilFinish();
      assertEquals(0, TrendMetrics.counter(result, "keysHoldingState"), "keys holding state");
      for (long seed = first; seed < Math.min(cases, first + BATCH); seed++) {
        assertOnlyTheLastVersionIsKept(Case.of(seed).schedule(), store(runner, seed));
      }
    }
    assertTrue(changed > cases / 2, "most cases changed their workload: " + changed);
  }

  /**
   * Events delayed by up to 60 ms under an allowed lateness of 0–20 ms: late within, across (some
   * windows expired, others not) and beyond the lateness, with the changes sent among them. Each
   * window's final pane is brute force over the events it admitted, in the windows in force. On the
   * DirectRunner only: its {@code TestStream} moves on once every step has seen a watermark, so an
   * event arrives at the keys under the watermark the script means. On Flink the watermark reaches
   * the keys along two paths (the events', and the changes' through the change log), and the keys
   * judge a late event by the lower one: a replay gated on the source's consumers cannot pin which
   * that is.
   */
  @Test
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  void lateEventsEnterTheWindowsInForceThatHadNotExpired() {
    TestRunner runner = TestRunner.DIRECT;
    int cases = Seeds.count(DIRECT);
    long deadLetters = 0;
    for (long first = 0; first < cases; first += BATCH) {
      Pipeline pipeline = Pipeline.create(runner.options(1));
      TestRunner.skipImmutabilityCheck(pipeline);
      for (long seed = first; seed < Math.min(cases, first + BATCH); seed++) {
        Case c = Case.of(seed, 60, true);
        long lateness = seed % 3 == 0 ? 0 : 1 + seed % 20;
        Arrivals.Read read = c.script().read(pipeline.begin(), runner, " " + seed);
        TrendAggregate.Result out =
            read.events()
                .apply(
                    "Aggregate " + seed,
                    TrendAggregate.of(c.schedule().initial())
                        .withWorkloadChanges(read.changes(), store(runner, 1_000 + seed))
                        .withAllowedLateness(Duration.millis(lateness)));
        Map<String, String> expected = c.expectedFinalValues(lateness);
        String what = "seed " + seed + ", lateness " + lateness + "\n" + c.schedule().describe();
        PAssert.that(Panes.of(out.results(), "Lines " + seed))
            .satisfies(
                lines -> {
                  Map<String, String> wrong =
                      Panes.wrongFinalValues(expected, Panes.last(Panes.parse(lines)));
                  assertEquals(Map.of(), wrong, what);
                  return null;
                });
        PAssert.that(out.refusedChanges()).empty();
      }
      PipelineResult result = pipeline.run();
      result.waitUntilFinish();
      assertEquals(0, TrendMetrics.counter(result, "keysHoldingState"), "keys holding state");
      deadLetters += TrendMetrics.counter(result, "deadLetters");
    }
    assertTrue(deadLetters > 0, "some events came beyond the lateness");
  }

  private static String store(TestRunner runner, long seed) {
    return "memory:live-changes-" + runner + "-" + seed;
  }

  /** Every version's block but the last one's went with its windows. */
  private static void assertOnlyTheLastVersionIsKept(WorkloadSchedules.Case c, String uri)
      throws IOException {
    long versions = c.applied().stream().mapToLong(WorkloadChange::time).distinct().count();
    String owner =
        "trends/"
            + String.join(",", c.initial().queries().stream().map(Query::name).toList())
            + "/versions/";
    try (BlockStore store = BlockStores.open(uri)) {
      for (long v = 1; v <= versions; v++) {
        int kept = store.list(owner + v).size();
        assertTrue(kept <= (v == versions ? 1 : 0), "blocks of version " + v + ": " + kept);
      }
    }
  }

  /**
   * A change that does not parse, one naming a query not running, one adding a name in use and one
   * that comes after the watermark passed its time are refused with their reasons; the job goes on
   * with the one that applies.
   */
  @OnEachRunner(flinkParallelism = 1)
  void changesThatDoNotApplyAreRefusedWithTheReason(TestPipeline p, TestRunner runner) {
    Workload w = Workload.parse("QUERY q0\nRETURN COUNT(*)\nPATTERN A+\nWITHIN 10 ms\n");
    Arrivals script =
        new Arrivals()
            .add(WorkloadChange.add(20, "QUERY q1\nRETURN COUNT(*)\nPATTERN A+ WITHIN"))
            .add(WorkloadChange.remove(20, "q7"))
            .add(WorkloadChange.add(30, "QUERY q0\nRETURN COUNT(*)\nPATTERN A+\nWITHIN 10 ms"))
            .add(WorkloadChange.add(40, "QUERY q2\nRETURN COUNT(*)\nPATTERN A+\nWITHIN 10 ms"))
            .add(Event.of("A", 5))
            .add(Event.of("A", 45))
            .advanceWatermarkTo(new Instant(60))
            .add(WorkloadChange.remove(50, "q0"))
            .add(Event.of("A", 65));
    Arrivals.Read read = script.read(p.begin(), runner, "");
    TrendAggregate.Result out =
        read.events()
            .apply(
                TrendAggregate.of(w)
                    .withWorkloadChanges(read.changes(), "memory:refused-changes-" + runner));
    PAssert.that(
            out.refusedChanges()
                .apply(
                    MapElements.into(TypeDescriptors.strings())
                        .via((RefusedChange r) -> r.change().time() + " " + r.reason())))
        .satisfies(
            reasons -> {
              List<String> sorted = new ArrayList<>();
              reasons.forEach(sorted::add);
              sorted.sort(Comparator.naturalOrder());
              assertEquals(4, sorted.size(), sorted.toString());
              assertTrue(sorted.get(0).matches("20 .*line 3.*"), sorted.toString());
              assertEquals("20 no query named 'q7' is running (running: q0)", sorted.get(1));
              assertTrue(
                  sorted.get(2).startsWith("30 ") && sorted.get(2).contains("already running"),
                  sorted.toString());
              assertTrue(sorted.get(3).startsWith("50 late: the changes' watermark had passed"));
              return null;
            });
    PAssert.that(Panes.of(out.results(), "Lines"))
        .satisfies(
            lines -> {
              List<String> sorted = new ArrayList<>();
              lines.forEach(sorted::add);
              sorted.sort(Comparator.naturalOrder());
              // q0 throughout (its removal came late); q2 from 40 ms.
              assertEquals(
                  List.of(
                      "q0 {} [0, 10)\t1\tON_TIME\t0",
                      "q0 {} [40, 50)\t1\tON_TIME\t0",
                      "q0 {} [60, 70)\t1\tON_TIME\t0",
                      "q2 {} [40, 50)\t1\tON_TIME\t0",
                      "q2 {} [60, 70)\t1\tON_TIME\t0"),
                  sorted);
              return null;
            });
    p.run().waitUntilFinish();
  }

  @Test
  void aScheduleAndChangesSentWhileRunningDoNotMix() {
    Workload w = Workload.parse("QUERY q0\nRETURN COUNT(*)\nPATTERN A+\nWITHIN 10 ms\n");
    Pipeline p = Pipeline.create();
    PCollection<WorkloadChange> changes = p.apply(Create.of(WorkloadChange.remove(5, "q0")));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                TrendAggregate.of(w)
                    .withWorkloadChanges(List.of(WorkloadChange.remove(5, "q0")))
                    .withWorkloadChanges(changes, "memory:mixed"));
    assertTrue(e.getMessage().contains("not both"), e.getMessage());
    assertThrows(
        IllegalStateException.class,
        () -> p.apply(Create.empty(EventCoder.of())).apply(TrendAggregate.of(w)).refusedChanges());
  }
}
