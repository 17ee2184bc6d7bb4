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
import dev.eventide.trends.WorkloadSchedules;
import dev.eventide.trends.query.Query;
import dev.eventide.trends.query.Workload;
import dev.eventide.trends.query.WorkloadChange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
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

  @OnEachRunner(flinkParallelism = 1)
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  void everyQuerysFinalPanesAreBruteForceOverItsWindowsInForce(TestPipeline p, TestRunner runner)
      throws IOException {
    int cases = Seeds.count(runner == TestRunner.DIRECT ? DIRECT : FLINK);
    long[] changed = {0};
    ChangeCase.runInBatches(
        p,
        runner,
        cases,
        BATCH,
        (pipeline, seed) -> {
          ChangeCase c = ChangeCase.of(seed, 40, true);
          WorkloadSchedules.Case schedule = c.schedule();
          changed[0] += schedule.applied().isEmpty() ? 0 : 1;
          Arrivals.Read read = c.script().read(pipeline.begin(), runner, " " + seed);
          TrendAggregate.Result out =
              read.events()
                  // Workers that keep no version compiled: every key reads its version from the
                  // store, so a block deleted while a key still needs it fails the run.
                  .apply("ForgetCompiledVersions " + seed, ParDo.of(new ForgetCompiledVersions()))
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
          Panes.assertFinalValues(out.results(), "Lines " + seed, expected, what);
          PAssert.that(out.deadLetters()).empty();
          PAssert.that(out.refusedChanges()).empty();
        },
        (result, from, to) -> {
          for (long seed = from; seed < to; seed++) {
            assertOnlyTheLastVersionIsKept(
                ChangeCase.of(seed, 40, true).schedule(), store(runner, seed));
          }
        });
    assertTrue(changed[0] > cases / 2, "most cases changed their workload: " + changed[0]);
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
  void lateEventsEnterTheWindowsInForceThatHadNotExpired() throws IOException {
    TestRunner runner = TestRunner.DIRECT;
    int cases = Seeds.count(DIRECT);
    long[] deadLetters = {0};
    ChangeCase.runInBatches(
        null,
        runner,
        cases,
        BATCH,
        (pipeline, seed) -> {
          ChangeCase c = ChangeCase.of(seed, 60, true);
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
          Panes.assertFinalValues(out.results(), "Lines " + seed, expected, what);
          PAssert.that(out.refusedChanges()).empty();
        },
        (result, from, to) -> deadLetters[0] += TrendMetrics.counter(result, "deadLetters"));
    assertTrue(deadLetters[0] > 0, "some events came beyond the lateness");
  }

  /** Passes events on, forgetting the versions this worker compiled before each. */
  private static final class ForgetCompiledVersions extends DoFn<Event, Event> {
    @ProcessElement
    public void process(@Element Event e, OutputReceiver<Event> out) {
      VersionStore.forgetCompiled();
      out.output(e);
    }
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
