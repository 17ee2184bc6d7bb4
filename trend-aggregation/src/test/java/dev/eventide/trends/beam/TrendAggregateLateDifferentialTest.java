package dev.eventide.trends.beam;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.testing.differential.Seeds;
import dev.eventide.testing.runners.OnEachRunner;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.testing.streams.GatedReplay;
import dev.eventide.trends.BruteForce;
import dev.eventide.trends.Event;
import dev.eventide.trends.RandomWorkloads;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.query.Query;
import dev.eventide.trends.query.Workload;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Timeout;

/**
 * {@link TrendAggregate}'s rule for late events against brute force, on seeded random arrival
 * schedules: random workloads (sliding and tumbling windows, GROUPBY, NOT, predicates, equivalence)
 * over random events, some of them missing the GROUPBY attribute; each event arrives on time or
 * delayed, among several watermark steps, so that it is late within, across (some of its windows
 * expired, others not) or beyond the allowed lateness, which is 0 in a third of the schedules.
 *
 * <p>The reference knows nothing of the transform: each window's final pane equals brute force over
 * the events the window admitted (those whose arrival watermark is not after the window's end − 1
 * ms plus the lateness), and the dead letters are exactly the events that lack an attribute a query
 * reading them needs, and, per query reading an event, the events none of whose windows admitted
 * them. {@value #DIRECT} schedules on the DirectRunner ({@code TestStream}), {@value #FLINK} on
 * embedded Flink ({@link GatedReplay}); {@code -Deventide.test.seedScale} runs more.
 */
class TrendAggregateLateDifferentialTest {
  private static final int DIRECT = 200;
  private static final int FLINK = 20;

  /** A system property that runs one schedule, by its seed, to look into it. */
  private static final String ONE_SCHEDULE = "eventide.test.lateSchedule";

  private static final int BATCH = 25;

  /** An event and the watermark in force when it arrives (the last advance before it). */
  record Arrival(Event event, long watermark) implements Serializable {}

  /** A seeded case: workload, lateness and arrivals, with the watermark advances among them. */
  record Schedule(long seed, Workload workload, long lateness, List<Arrival> arrivals) {

    static Schedule of(long seed) {
      Random random = new Random(seed * 1_000_003 + 17);
      Workload workload =
          Workload.parse(
              seed % 2 == 0
                  ? new RandomWorkloads(seed).sharableWorkload(3)
                  : new RandomWorkloads(seed).workload(3));
      List<Event> events =
          seed % 2 == 0
              ? new RandomWorkloads(seed * 31 + 7).burstyEvents(40)
              : new RandomWorkloads(seed * 31 + 7).events(40, 60);
      long lateness = random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(30);
      // Arrival order: on time, or delayed by up to 60 ms (beyond the longest WITHIN plus the
      // longest lateness); one event in twelve without its GROUPBY attribute.
      List<long[]> order = new ArrayList<>();
      List<Event> shaped = new ArrayList<>();
      for (int i = 0; i < events.size(); i++) {
        Event e = events.get(i);
        if (random.nextInt(12) == 0) {
          Map<String, Object> attributes = new LinkedHashMap<>(e.attributes());
          attributes.remove("g");
          e = Event.of(e.type(), e.time(), attributes);
        }
        shaped.add(e);
        long delay = random.nextInt(10) < 7 ? 0 : 1 + random.nextInt(60);
        order.add(new long[] {e.time() + delay, i});
      }
      order.sort(Comparator.comparingLong((long[] a) -> a[0]).thenComparingLong(a -> a[1]));
      List<Arrival> arrivals = new ArrayList<>();
      long watermark = BoundedWindow.TIMESTAMP_MIN_VALUE.getMillis();
      for (long[] slot : order) {
        if (random.nextInt(5) == 0) {
          watermark = Math.max(watermark, slot[0] - random.nextInt(5));
        }
        arrivals.add(new Arrival(shaped.get((int) slot[1]), watermark));
      }
      return new Schedule(seed, workload, lateness, arrivals);
    }

    /** The arrivals and advances for the runner. */
    PTransform<PBegin, PCollection<Event>> source(TestRunner runner) {
      Arrivals script = new Arrivals();
      for (Arrival a : arrivals) {
        if (a.watermark() > BoundedWindow.TIMESTAMP_MIN_VALUE.getMillis()) {
          script.advanceWatermarkTo(new Instant(a.watermark()));
        }
        script.add(a.event());
      }
      return script.on(runner);
    }

    /** Whether the event lacks an attribute that a query reading its type needs. */
    boolean lacksAttribute(Event e) {
      for (Query q : workload.queries()) {
        if (q.types().contains(e.type())) {
          for (String a : q.groupBy()) {
            if (e.attribute(a) == null) {
              return true;
            }
          }
          for (String a : q.equivalence()) {
            if (e.attribute(a) == null) {
              return true;
            }
          }
        }
      }
      return false;
    }

    /** The end − 1 ms of the last window of q that holds time t, plus the lateness. */
    long lastExpiry(Query q, long t) {
      return Math.floorDiv(t, q.slide()) * q.slide() + q.within() - 1 + lateness;
    }

    /** "event|query" for each query reading an event none of whose windows admitted it. */
    Set<String> expectedLateDeadLetters() {
      Set<String> dead = new TreeSet<>();
      for (Arrival a : arrivals) {
        Event e = a.event();
        if (lacksAttribute(e)) {
          continue;
        }
        for (Query q : workload.queries()) {
          if (q.types().contains(e.type()) && lastExpiry(q, e.time()) < a.watermark()) {
            dead.add(Panes.canonical(e) + "|" + q.name());
          }
        }
      }
      return dead;
    }

    /**
     * Each result's final value: brute force over the events its window admitted. A window admits
     * the events that arrived under a watermark not after its end − 1 ms plus the lateness, so the
     * windows that admit the same events up to one watermark level share one brute-force run.
     */
    Map<String, String> expectedFinalValues() {
      TreeSet<Long> levels = new TreeSet<>();
      arrivals.forEach(a -> levels.add(a.watermark()));
      Map<String, String> expected = new HashMap<>();
      for (long level : levels) {
        List<Event> admitted = new ArrayList<>();
        for (Arrival a : arrivals) {
          if (a.watermark() <= level && !lacksAttribute(a.event())) {
            admitted.add(a.event());
          }
        }
        admitted.sort(Comparator.comparingLong(Event::time));
        for (TrendResult r : BruteForce.evaluate(workload, admitted)) {
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
  // 155 s for 200 schedules on the DirectRunner with another build beside it: more than the
  // default 5 minutes under a heavier load, or with -Deventide.test.seedScale.
  @Timeout(value = 15, unit = TimeUnit.MINUTES)
  void everyFinalPaneAndDeadLetterFollowsTheRule(TestPipeline p, TestRunner runner) {
    int schedules = Seeds.count(runner == TestRunner.DIRECT ? DIRECT : FLINK);
    Long only = Long.getLong(ONE_SCHEDULE);
    long from = only == null ? 0 : only;
    long to = only == null ? schedules : only + 1;
    long lateEvents = 0;
    long deadLetters = 0;
    // Pipelines of at most BATCH schedules: the DirectRunner moves a TestStream on only once the
    // whole pipeline is idle, so one pipeline of all of them takes time quadratic in their number.
    for (long first = from; first < to; first += BATCH) {
      Pipeline pipeline = first == from ? p : Pipeline.create(runner.options(1));
      TestRunner.skipImmutabilityCheck(pipeline);
      addSchedules(pipeline, runner, first, Math.min(to, first + BATCH));
      PipelineResult result = pipeline.run();
      result.waitUntilFinish();
      lateEvents += TrendMetrics.counter(result, "lateEvents");
      deadLetters += TrendMetrics.counter(result, "deadLetters");
    }
    assertTrue(lateEvents > 0, "late events were re-evaluated");
    assertTrue(deadLetters > 0, "some events were dead letters");
  }

  /** Each schedule from {@code first} to {@code end} (exclusive) and its assertions. */
  private static void addSchedules(Pipeline p, TestRunner runner, long first, long end) {
    for (long seed = first; seed < end; seed++) {
      Schedule schedule = Schedule.of(seed);
      TrendAggregate.Result out =
          p.apply("Arrivals " + seed, schedule.source(runner))
              .apply(
                  "Aggregate " + seed,
                  TrendAggregate.of(schedule.workload())
                      .withAllowedLateness(Duration.millis(schedule.lateness())));
      PCollection<String> lines = Panes.withDeadLetters(out, String.valueOf(seed));
      Map<String, String> expected = schedule.expectedFinalValues();
      Set<String> expectedDead = schedule.expectedLateDeadLetters();
      Set<String> expectedLacking = new TreeSet<>();
      Map<String, Set<String>> readers = new HashMap<>();
      for (Arrival a : schedule.arrivals()) {
        if (schedule.lacksAttribute(a.event())) {
          expectedLacking.add(Panes.canonical(a.event()));
        }
      }
      for (Query q : schedule.workload().queries()) {
        for (String type : q.types()) {
          readers.computeIfAbsent(type, t -> new HashSet<>()).add(q.name());
        }
      }
      String what = "seed " + seed + ", lateness " + schedule.lateness() + " ms";
      PAssert.that(lines)
          .satisfies(
              all -> {
                List<String> results = new ArrayList<>();
                Set<String> deadLetters = new TreeSet<>();
                Set<String> lacking = new TreeSet<>();
                for (String line : all) {
                  if (!line.startsWith("D\t")) {
                    results.add(line);
                    continue;
                  }
                  String[] f = line.split("\t", 3);
                  String reason = f[2];
                  if (reason.contains("has no attribute")) {
                    lacking.add(f[1]);
                    continue;
                  }
                  int from = reason.indexOf("the windows of ");
                  int to = reason.indexOf(" holding time ");
                  assertTrue(from >= 0 && to > from, what + ": reason " + reason);
                  String type = f[1].substring(0, f[1].indexOf('@'));
                  for (String q : reason.substring(from + 15, to).split(", ")) {
                    if (readers.getOrDefault(type, Set.of()).contains(q)) {
                      deadLetters.add(f[1] + "|" + q);
                    }
                  }
                }
                assertEquals(expectedLacking, lacking, what + ": events lacking an attribute");
                assertEquals(expectedDead, deadLetters, what + ": late dead letters");
                Map<String, String> wrong =
                    Panes.wrongFinalValues(expected, Panes.last(Panes.parse(results)));
                assertEquals(Map.of(), wrong, what + ": final panes");
                return null;
              });
    }
  }
}
