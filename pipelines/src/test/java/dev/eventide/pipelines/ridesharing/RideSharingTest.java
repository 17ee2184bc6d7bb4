package dev.eventide.pipelines.ridesharing;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;

import dev.eventide.testing.runners.TestRunner;
import dev.eventide.trends.Event;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.io.ResultJson;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.options.PipelineOptions;
import org.joda.time.Duration;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The ride-sharing workload over a stream with late events, on the DirectRunner and embedded Flink:
 * with an allowed lateness longer than any delay, no event is a dead letter, late events
 * re-evaluate their windows, and the last pane of every result equals GRETA (the HAMLET paper's
 * baseline, an engine of its own that shares nothing) over every event.
 */
class RideSharingTest {

  @TempDir Path temp;

  @ParameterizedTest
  @EnumSource(TestRunner.class)
  void lastPanesEqualGretaOverEveryEvent(TestRunner runner) throws Exception {
    RideStream stream = new RideStream(6_000, 3, 20, 0.3, 120_000, 9);
    PipelineOptions options = runner.options(2);
    if (runner == TestRunner.FLINK) {
      // The source's watermark reaches the DoFn at once, so events meant to be late are.
      options.as(FlinkPipelineOptions.class).setMaxBundleSize(1L);
    }
    StringWriter table = new StringWriter();
    RideSharing.Report report =
        RideSharing.run(
            stream,
            // Longer than any delay: every late event re-evaluates all its windows. (With less,
            // an event can miss the windows that expired before it came: TrendAggregateTest.)
            Duration.standardMinutes(5),
            options,
            temp.resolve(runner.toString()),
            new PrintWriter(table));

    assertThat("dead letters", report.outcome().deadLetters(), equalTo(List.of()));
    List<Event> events = new ArrayList<>();
    for (RideStream.Arrival a : stream.arrivals()) {
      events.add(a.event());
    }
    events.sort(java.util.Comparator.comparingLong(Event::time));
    List<String> expected = new ArrayList<>();
    Engines.GRETA
        .evaluate(RideSharing.workload(), events)
        .forEach(r -> expected.add(ResultJson.format(r)));
    Collections.sort(expected);
    List<String> missing = new ArrayList<>(expected);
    missing.removeAll(report.outcome().results());
    List<String> extra = new ArrayList<>(report.outcome().results());
    extra.removeAll(expected);
    assertThat(
        "missing "
            + missing.subList(0, Math.min(4, missing.size()))
            + "\nextra "
            + extra.subList(0, Math.min(4, extra.size())),
        report.outcome().results(),
        equalTo(expected));
    assertThat(expected.size(), greaterThan(20));
    assertThat(table.toString().lines().count(), greaterThan(5L));
    if (runner.honorsTestStreamWatermarks()) {
      assertThat(report.outcome().latePanes(), greaterThan(0L));
    }
  }
}
