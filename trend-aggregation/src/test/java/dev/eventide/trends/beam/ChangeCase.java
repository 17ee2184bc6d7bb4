package dev.eventide.trends.beam;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.eventide.testing.runners.TestRunner;
import dev.eventide.trends.Event;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.WorkloadSchedules;
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
import java.util.function.ObjLongConsumer;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.joda.time.Instant;

/**
 * A seeded schedule of workload changes ({@link WorkloadSchedules}) as the tests of changing
 * workloads script it: its events in arrival order among watermark advances, on time or delayed
 * (each arrival an event's index and the watermark it arrives under), its changes among them or in
 * a source of their own, and the reference for late events.
 */
record ChangeCase(WorkloadSchedules.Case schedule, List<long[]> arrivals, Arrivals script) {

  /** What a test checks once a pipeline of seeds [from, to) has run. */
  interface AfterRun {
    void check(PipelineResult result, long from, long to) throws IOException;
  }

  /**
   * Runs the seeds [0, cases) in pipelines of {@code batch} seeds each, the first in {@code first}
   * (null: a fresh one, as every later one is): adds each seed's steps, runs the pipeline, checks
   * that no key holds state at the end, then hands the result to {@code afterRun}.
   */
  static void runInBatches(
      Pipeline first,
      TestRunner runner,
      int cases,
      int batch,
      ObjLongConsumer<Pipeline> addSeed,
      AfterRun afterRun)
      throws IOException {
    for (long from = 0; from < cases; from += batch) {
      Pipeline pipeline = from == 0 && first != null ? first : Pipeline.create(runner.options(1));
      TestRunner.skipImmutabilityCheck(pipeline);
      long to = Math.min(cases, from + batch);
      for (long seed = from; seed < to; seed++) {
        addSeed.accept(pipeline, seed);
      }
      PipelineResult result = pipeline.run();
      result.waitUntilFinish();
      // Every version's keys ended with its windows.
      assertEquals(0, TrendMetrics.counter(result, "keysHoldingState"), "keys holding state");
      afterRun.check(result, from, to);
    }
  }

  /**
   * @param maxDelay how late, at most, a delayed event arrives (three in ten are)
   * @param changesInStream whether the changes arrive among the events, each at a random point
   *     before the watermark passes its time (else the script holds events only)
   */
  static ChangeCase of(long seed, int maxDelay, boolean changesInStream) {
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
    return new ChangeCase(schedule, arrivals, script);
  }

  /**
   * Each result's final value: brute force over the windows in force and the events each window
   * admitted, those that arrived under a watermark not after its end − 1 ms plus the lateness (the
   * windows that admit the same events share one brute-force run).
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
