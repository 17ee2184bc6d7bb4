package dev.eventide.trends.beam;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.testing.differential.Seeds;
import dev.eventide.testing.runners.OnEachRunner;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.trends.WorkloadSchedules;
import dev.eventide.trends.query.Workload;
import dev.eventide.trends.query.WorkloadChange;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link TrendAggregate#withWorkloadChanges} against brute force: seeded workloads, schedules of
 * changes (additions, removals, replacements under one name) and streams whose events arrive out of
 * order among watermark steps, some late (within the allowed lateness, so every event counts). Each
 * query's final panes equal brute force over the windows it was in force for (those starting at or
 * after its addition and ending by its removal), and no other window of it has a result; with
 * events late beyond the lateness too, each window's final pane is brute force over the events it
 * admitted. {@value #DIRECT} schedules on the DirectRunner, {@value #FLINK} on embedded Flink.
 */
class TrendAggregateWorkloadChangesTest {
  private static final int DIRECT = 60;
  private static final int FLINK = 10;
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
          ChangeCase c = ChangeCase.of(seed, 40, false);
          WorkloadSchedules.Case schedule = c.schedule();
          changed[0] += schedule.applied().isEmpty() ? 0 : 1;
          TrendAggregate.Result out =
              pipeline
                  .apply("Arrivals " + seed, c.script().on(runner))
                  .apply(
                      "Aggregate " + seed,
                      TrendAggregate.of(schedule.initial())
                          .withWorkloadChanges(schedule.applied())
                          .withAllowedLateness(Duration.millis(LATENESS)));
          Map<String, String> expected = Panes.expected(schedule.expected());
          String what =
              "seed "
                  + seed
                  + ", changes "
                  + schedule.applied().stream().map(WorkloadChange::describe).toList();
          Panes.assertFinalValues(out.results(), "Lines " + seed, expected, what);
          PAssert.that(out.deadLetters()).empty();
        },
        (result, from, to) -> {});
    assertTrue(changed[0] > cases / 2, "most cases changed their workload: " + changed[0]);
  }

  /**
   * Events delayed by up to 60 ms under an allowed lateness of 0–20 ms: late within, across and
   * beyond the lateness. Each window's final pane is brute force over the events it admitted (those
   * arriving under a watermark not after its end − 1 ms plus the lateness), in the windows in force
   * ({@link ChangeCase#expectedFinalValues}).
   */
  @OnEachRunner(flinkParallelism = 1)
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  void lateEventsEnterTheWindowsInForceThatHadNotExpired(TestPipeline p, TestRunner runner)
      throws IOException {
    int cases = Seeds.count(runner == TestRunner.DIRECT ? DIRECT : FLINK);
    long[] deadLetters = {0};
    ChangeCase.runInBatches(
        p,
        runner,
        cases,
        BATCH,
        (pipeline, seed) -> {
          ChangeCase c = ChangeCase.of(seed, 60, false);
          long lateness = seed % 3 == 0 ? 0 : 1 + seed % 20;
          TrendAggregate.Result out =
              pipeline
                  .apply("Arrivals " + seed, c.script().on(runner))
                  .apply(
                      "Aggregate " + seed,
                      TrendAggregate.of(c.schedule().initial())
                          .withWorkloadChanges(c.schedule().applied())
                          .withAllowedLateness(Duration.millis(lateness)));
          Map<String, String> expected = c.expectedFinalValues(lateness);
          String what = "seed " + seed + ", lateness " + lateness + "\n" + c.schedule().describe();
          Panes.assertFinalValues(out.results(), "Lines " + seed, expected, what);
        },
        (result, from, to) -> deadLetters[0] += TrendMetrics.counter(result, "deadLetters"));
    assertTrue(deadLetters[0] > 0, "some events came beyond the lateness");
  }

  @Test
  void aScheduleThatDoesNotApplyIsRefusedWhenThePipelineIsBuilt() {
    Workload w = Workload.parse("QUERY q0\nRETURN COUNT(*)\nPATTERN A+\nWITHIN 10 ms\n");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                TrendAggregate.of(w)
                    .withWorkloadChanges(
                        List.of(WorkloadChange.add(5, "QUERY q0\nRETURN COUNT(*)\nPATTERN B"))));
    assertTrue(
        e.getMessage().startsWith("the workload change (add at 5: QUERY q0 RETURN COUNT(*)"),
        e.getMessage());
  }

  @Test
  void theNumberOfChangesIsDisplayed() {
    Workload w = Workload.parse("QUERY q0\nRETURN COUNT(*)\nPATTERN A+\nWITHIN 10 ms\n");
    DisplayData data =
        DisplayData.from(
            TrendAggregate.of(w).withWorkloadChanges(List.of(WorkloadChange.remove(5, "q0"))));
    assertTrue(
        data.items().stream()
            .anyMatch(
                i ->
                    i.getKey().equals("workloadChanges")
                        && String.valueOf(i.getValue()).equals("1")),
        data.toString());
  }
}
