package dev.eventide.trends.beam;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.eventide.testing.runners.OnEachRunner;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.trends.Event;
import dev.eventide.trends.query.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.windowing.PaneInfo.Timing;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The rule for a late event, per window: it enters each of its windows whose end plus the allowed
 * lateness is not behind the watermark at its arrival, and no other; a window that has expired
 * never gets another pane; an event that enters no window is a dead letter. Each case is one query
 * and a few arrivals, replayed so that every event arrives under the watermark it is meant to, on
 * the DirectRunner and embedded Flink. Times are seconds.
 */
class TrendAggregateLateRuleTest {

  /**
   * WITHIN 20 s SLIDE 5 s, allowed lateness 20 s. B at 30 s; the watermark to 64 s; B at 32 s and B
   * at 26 s. [15, 35 s) and [20, 40 s) had expired (at 55 s and 60 s): their on-time COUNT 1 is
   * final, and they get no other pane. [25, 45 s) takes both late events (7 trends), [30, 50 s) the
   * one at 32 s (3).
   */
  @OnEachRunner(flinkParallelism = 1)
  void aLateEventEntersOnlyTheWindowsNotExpiredAtItsArrival(TestPipeline p, TestRunner runner) {
    Arrivals arrivals = new Arrivals().add(b(30)).advanceWatermarkTo(at(64)).add(b(32)).add(b(26));
    expect(
        p,
        runner,
        arrivals,
        "WITHIN 20 seconds SLIDE 5 seconds",
        Duration.standardSeconds(20),
        Map.of(
            "[15, 35)", List.of("1 ON_TIME"),
            "[20, 40)", List.of("1 ON_TIME"),
            "[25, 45)", List.of("1 ON_TIME", "7 LATE"),
            "[30, 50)", List.of("1 ON_TIME", "3 LATE")), // the DirectRunner: [25, 45) 3 LATE too
        List.of());
  }

  /**
   * The same query without allowed lateness. B at 30 s; the watermark to 36 s; B at 33 s. It is
   * late only for [15, 35 s), which stays at 1; [20, 40 s), [25, 45 s) and [30, 50 s) have not
   * fired: each comes out once, on time, with both events (3 trends).
   */
  @OnEachRunner(flinkParallelism = 1)
  void withoutLatenessALateEventEntersItsWindowsThatAreStillOpen(
      TestPipeline p, TestRunner runner) {
    Arrivals arrivals = new Arrivals().add(b(30)).advanceWatermarkTo(at(36)).add(b(33));
    expect(
        p,
        runner,
        arrivals,
        "WITHIN 20 seconds SLIDE 5 seconds",
        Duration.ZERO,
        Map.of(
            "[15, 35)", List.of("1 ON_TIME"),
            "[20, 40)", List.of("3 ON_TIME"),
            "[25, 45)", List.of("3 ON_TIME"),
            "[30, 50)", List.of("3 ON_TIME")),
        List.of());
  }

  /**
   * A window whose first trend comes late: {@code WHERE B.v > 5}, WITHIN 10 s, lateness 10 s. B
   * with v = 1 at 1 s; the watermark to 10.5 s; B with v = 9 at 2 s. [0, 10 s) had no result when
   * the watermark passed its end: its first pane is LATE, with index 0, as Beam's windowing has it.
   */
  @OnEachRunner(flinkParallelism = 1)
  void aWindowsFirstResultAfterItsEndIsALatePane(TestPipeline p, TestRunner runner) {
    Arrivals arrivals =
        new Arrivals()
            .add(Event.of("B", 1_000, "v", 1L))
            .advanceWatermarkTo(new Instant(10_500))
            .add(Event.of("B", 2_000, "v", 9L));
    expect(
        p,
        runner,
        arrivals,
        "WHERE B.v > 5 WITHIN 10 seconds",
        Duration.standardSeconds(10),
        Map.of("[0, 10)", List.of("1 LATE")),
        List.of());
  }

  /**
   * An event all of whose windows have expired is a dead letter and changes nothing: WITHIN 10 s,
   * lateness 40 s; B at 15 s; the watermark to 50.5 s; B at 5 s, whose only window [0, 10 s)
   * expired at 50 s.
   */
  @OnEachRunner(flinkParallelism = 1)
  void anEventWhoseWindowsHaveAllExpiredIsADeadLetter(TestPipeline p, TestRunner runner) {
    Arrivals arrivals = new Arrivals().add(b(15)).advanceWatermarkTo(new Instant(50_500)).add(b(5));
    expect(
        p,
        runner,
        arrivals,
        "WITHIN 10 seconds",
        Duration.standardSeconds(40),
        Map.of("[10, 20)", List.of("1 ON_TIME")),
        List.of("B@5000"));
  }

  private static Event b(long seconds) {
    return Event.of("B", seconds * 1_000);
  }

  private static Instant at(long seconds) {
    return new Instant(seconds * 1_000);
  }

  /**
   * Runs {@code PATTERN B+ RETURN COUNT(*)} with the given WHERE and window clauses and checks each
   * window's first and last panes ("value TIMING"; one if it has one), keyed by "[start s, end s)",
   * and the dead letters ("B@millis").
   */
  private static void expect(
      TestPipeline p,
      TestRunner runner,
      Arrivals replay,
      String clauses,
      Duration lateness,
      Map<String, List<String>> panes,
      List<String> deadLetters) {
    Workload workload = Workload.parse("QUERY q RETURN COUNT(*) PATTERN B+ " + clauses);
    TrendAggregate.Result out =
        p.apply(replay.on(runner)).apply(TrendAggregate.of(workload).withAllowedLateness(lateness));
    PAssert.that(Panes.of(out.results(), "Panes"))
        .satisfies(
            lines -> {
              List<Panes.Pane> all = Panes.parse(lines);
              Panes.last(all); // indexes run 0, 1, 2, ...
              Map<String, List<String>> byWindow = new TreeMap<>();
              all.stream()
                  .sorted(java.util.Comparator.comparingLong(Panes.Pane::index))
                  .forEach(
                      pane ->
                          byWindow
                              .computeIfAbsent(seconds(pane.key()), k -> new ArrayList<>())
                              .add(pane.value() + " " + timing(pane.timing())));
              // A runner may fire late events that arrive one after the other together or apart:
              // each window's first and last panes are what the rule decides.
              byWindow.replaceAll(
                  (window, list) ->
                      list.size() <= 2 ? list : List.of(list.get(0), list.get(list.size() - 1)));
              assertEquals(new TreeMap<>(panes), byWindow);
              return null;
            });
    PCollection<String> dead =
        out.deadLetters()
            .apply(
                MapElements.into(TypeDescriptors.strings())
                    .via(d -> d.event().type() + "@" + d.event().time()));
    PAssert.that(dead).containsInAnyOrder(deadLetters);
    p.run().waitUntilFinish();
  }

  private static String timing(Timing timing) {
    return timing.name();
  }

  /** "q {} [25000, 45000)" as "[25, 45)". */
  private static String seconds(String key) {
    String window = key.substring(key.lastIndexOf('[') + 1, key.length() - 1);
    String[] bounds = window.split(", ");
    return "[" + Long.parseLong(bounds[0]) / 1_000 + ", " + Long.parseLong(bounds[1]) / 1_000 + ")";
  }
}
