package dev.eventide.pipelines.linearroad;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LateEventGenerator;
import dev.eventide.pipelines.output.SortedTextFile;
import dev.eventide.testing.runners.OnEachRunner;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Linear Road dataflow against plain Java over the generated reports: per segment and minute,
 * the statistics, the accidents and the tolls of the reports that arrived within the allowed
 * lateness, on the DirectRunner and on embedded Flink.
 */
class LinearRoadPipelineTest {
  private static final Duration LATENESS = Duration.standardSeconds(90);

  @TempDir Path output;

  private static LateEventGenerator reports() {
    return LateEventGenerator.builder()
        .setEvents(4_200)
        .setEventsPerWindow(1_200)
        .setWindow(Duration.standardMinutes(1))
        .setKeys(1_000)
        .setMaxValue(LinearRoadPipeline.REPORT_VALUES)
        .setLateFraction(0.3)
        .setSeed(31)
        .build();
  }

  @OnEachRunner
  void everyOutputIsTheDefinitionsOverTheKeptReports(TestPipeline p) {
    LinearRoadPipeline.build(
        p,
        LinearRoadPipeline.Settings.of(
            reports(),
            LATENESS,
            output.resolve("blocks").toUri().toString(),
            Duration.ZERO,
            output.toString()));
    p.run().waitUntilFinish();

    Map<String, List<String>> expected = reference(reports());
    assertThat(
        "some tolls are charged",
        expected.get("tolls").stream().filter(l -> !l.endsWith(" toll=0")).count(),
        greaterThan(3L));
    assertThat(
        "some minutes have accidents",
        expected.get("accidents").stream().filter(l -> l.endsWith("accident=yes")).count(),
        greaterThan(3L));
    for (String name : LinearRoadPipeline.OUTPUTS) {
      assertThat(name, SortedTextFile.read(output, name), equalTo(expected.get(name)));
    }
  }

  /** Each output's sorted lines, from the reports directly. */
  private static Map<String, List<String>> reference(LateEventGenerator reports) {
    FixedWindows minutes = FixedWindows.of(reports.window());
    // "start segment" -> kept reports as (vehicle, speed)
    Map<String, List<int[]>> kept = new TreeMap<>();
    int late = 0;
    for (LateEvent e : reports) {
      IntervalWindow w = minutes.assignWindow(e.eventTime());
      if (w.maxTimestamp().plus(LATENESS).isBefore(e.watermark())) {
        continue;
      }
      late += e.isLate() ? 1 : 0;
      int segment = (int) (e.value() % 20);
      int step = (int) (e.value() / 20);
      int speed = step < 10 ? 0 : segment % 4 == 0 ? 5 + step % 41 : 20 + step % 61;
      kept.computeIfAbsent(
              String.format(Locale.ROOT, "%s %02d", w.start(), segment), k -> new ArrayList<>())
          .add(new int[] {e.key(), speed});
    }
    assertThat("late reports kept", late, greaterThan(100));
    Map<String, List<String>> out = new TreeMap<>();
    LinearRoadPipeline.OUTPUTS.forEach(o -> out.put(o, new ArrayList<>()));
    kept.forEach(
        (minuteAndSegment, list) -> {
          Set<Integer> vehicles = new HashSet<>();
          Set<Integer> stopped = new HashSet<>();
          long speedSum = 0;
          for (int[] r : list) {
            vehicles.add(r[0]);
            speedSum += r[1];
            if (r[1] == 0) {
              stopped.add(r[0]);
            }
          }
          double average = speedSum / (double) list.size();
          boolean accident = stopped.size() >= 2;
          long toll =
              !accident && vehicles.size() > 50 && average < 40
                  ? 2L * (vehicles.size() - 50) * (vehicles.size() - 50)
                  : 0;
          out.get("statistics")
              .add(
                  String.format(
                      Locale.ROOT,
                      "%s reports=%d vehicles=%d avgSpeed=%.2f",
                      minuteAndSegment,
                      list.size(),
                      vehicles.size(),
                      average));
          out.get("accidents")
              .add(
                  minuteAndSegment
                      + " stopped="
                      + stopped.size()
                      + " accident="
                      + (accident ? "yes" : "no"));
          out.get("tolls")
              .add(
                  String.format(
                      Locale.ROOT,
                      "%s vehicles=%d avgSpeed=%.2f accident=%s toll=%d",
                      minuteAndSegment,
                      vehicles.size(),
                      average,
                      accident ? "yes" : "no",
                      toll));
        });
    out.values().forEach(lines -> lines.sort(null));
    return out;
  }

  @Test
  void tollIsLinearRoadsRule() {
    // 60 vehicles at 30 mph on average: 2 * 10^2
    assertThat(LinearRoadPipeline.toll(60, 100, 3_000, 0), equalTo(200L));
    // an accident: no toll
    assertThat(LinearRoadPipeline.toll(60, 100, 3_000, 2), equalTo(0L));
    // exactly 40 mph, or 50 vehicles: no toll
    assertThat(LinearRoadPipeline.toll(60, 100, 4_000, 1), equalTo(0L));
    assertThat(LinearRoadPipeline.toll(50, 100, 3_000, 0), equalTo(0L));
  }

  @Test
  void settingsNameWhatIsWrong() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                LinearRoadPipeline.Settings.of(
                    reports().toBuilder().setMaxValue(1_000).build(),
                    LATENESS,
                    "memory:x",
                    Duration.ZERO,
                    output.toString()));
    assertThat(e.getMessage(), containsString("[0, 20000)"));
  }

  @Test
  void reportsGiveSegmentsAndSpeeds() {
    assertThat(LinearRoadPipeline.segment(20 * 500 + 7), equalTo(7));
    assertThat(LinearRoadPipeline.speed(20 * 9 + 7), equalTo(0)); // stopped
    assertThat(LinearRoadPipeline.speed(20 * 41 + 8), equalTo(5)); // congested: 5 + 41 % 41
    assertThat(LinearRoadPipeline.speed(20 * 61 + 7), equalTo(20)); // flowing: 20 + 61 % 61
  }
}
