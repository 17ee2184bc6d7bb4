package dev.eventide.pipelines.average;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;

import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LateEventGenerator;
import dev.eventide.generators.LatenessDistribution;
import dev.eventide.testing.runners.OnEachRunner;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.joda.time.Duration;
import org.junit.jupiter.api.io.TempDir;

/**
 * The average pipeline against a brute-force reference computed straight from the generated events:
 * for every window, the count and sum of the events that arrived while the window was within the
 * allowed lateness.
 */
class AveragePipelineTest {
  @TempDir Path output;

  /** Window start to (count, sum) of the events Beam's lateness rule keeps. */
  private static Map<Long, CountSum> reference(LateEventGenerator events, Duration lateness) {
    FixedWindows windows = FixedWindows.of(events.window());
    Map<Long, CountSum> expected = new TreeMap<>();
    for (LateEvent e : events) {
      IntervalWindow w = windows.assignWindow(e.eventTime());
      if (!w.maxTimestamp().plus(lateness).isBefore(e.watermark())) {
        expected.merge(
            w.start().getMillis(),
            CountSum.EMPTY.plus(e.value()),
            (a, b) -> new CountSum(a.count() + b.count(), a.sum() + b.sum()));
      }
    }
    return expected;
  }

  private void assertMatchesReference(
      TestPipeline p, LateEventGenerator events, Duration lateness) {
    AveragePipeline.build(p, AveragePipeline.Settings.of(events, lateness, output.toString()));
    p.run().waitUntilFinish();
    AverageReport report = AverageReport.read(output);
    Map<Long, CountSum> actual =
        report.windows().stream()
            .collect(
                Collectors.toMap(
                    AverageReport.WindowResult::windowStart,
                    w -> new CountSum(w.count(), w.sum()),
                    (a, b) -> a,
                    TreeMap::new));
    assertThat(actual, equalTo(reference(events, lateness)));
    report.windows().forEach(w -> assertThat("final pane of " + w, w.complete(), equalTo(true)));
  }

  @OnEachRunner
  void logNormalLatenessMatchesTheReference(TestPipeline p) {
    LateEventGenerator events =
        LateEventGenerator.builder().setEvents(4_000).setEventsPerWindow(400).setSeed(11).build();
    // Two windows of lateness: log-normal delays drop a few percent of the events.
    Duration lateness = events.window().multipliedBy(2);
    assertThat(
        reference(events, lateness).values().stream().mapToLong(CountSum::count).sum(),
        greaterThan(3_000L));
    assertMatchesReference(p, events, lateness);
  }

  @OnEachRunner
  void burstyLatenessWithoutAllowedLatenessMatchesTheReference(TestPipeline p) {
    LateEventGenerator events =
        LateEventGenerator.builder()
            .setEvents(3_000)
            .setEventsPerWindow(300)
            .setLateFraction(0.3)
            .setLateness(LatenessDistribution.bursts(0.2, 0.5, 2))
            .setSeed(5)
            .build();
    assertMatchesReference(p, events, Duration.ZERO);
  }
}
