package dev.eventide.pipelines.overlap;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;

import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LateEventGenerator;
import dev.eventide.testing.runners.OnEachRunner;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.joda.time.Duration;
import org.junit.jupiter.api.io.TempDir;

/**
 * The overlap pipeline's eight outputs against plain Java over the generated events: both the
 * native and the Aggregate-built operators must give exactly what the operators' definitions give,
 * on the DirectRunner and on embedded Flink.
 */
class OverlapPipelineTest {
  private static final Duration LATENESS = Duration.standardSeconds(2);

  @TempDir Path output;

  @OnEachRunner
  void bothRenderingsGiveTheOperatorsDefinitions(TestPipeline p) {
    LateEventGenerator events =
        LateEventGenerator.builder()
            .setEvents(300)
            .setEventsPerWindow(30)
            .setWindow(Duration.standardSeconds(1))
            .setKeys(3)
            .setLateFraction(0.4)
            .setSeed(17)
            .build();
    OverlapPipeline.build(p, events, LATENESS, output.toString());
    p.run().waitUntilFinish();

    Map<String, List<String>> expected = expected(events);
    OverlapReport report = OverlapReport.read(output);
    for (OverlapReport.Comparison c : report.operators()) {
      assertThat(c.operator() + " has outputs", expected.get(c.operator()).size(), greaterThan(5));
      assertThat(c.operator() + " native", c.nativeLines(), equalTo(expected.get(c.operator())));
      assertThat(
          c.operator() + " aggregate", c.aggregateLines(), equalTo(expected.get(c.operator())));
    }
    assertThat(report.allAgree(), equalTo(true));
  }

  /** Each operator's sorted output lines, computed from the events directly. */
  private static Map<String, List<String>> expected(LateEventGenerator events) {
    Map<String, List<String>> out = new TreeMap<>();
    OverlapPipeline.OPERATORS.forEach(o -> out.put(o, new ArrayList<>()));
    FixedWindows windows = FixedWindows.of(events.window());
    Map<String, List<LateEvent>> onTimeByWindowAndKey = new TreeMap<>();
    int late = 0;
    for (LateEvent e : events) {
      if (e.eventTime().plus(LATENESS).isBefore(e.watermark())) {
        continue; // set aside before both renderings
      }
      String t = e.eventTime().toString();
      long v = e.value();
      if (v % 3 == 0) {
        out.get("filter").add(t + " " + e.key() + ":" + v);
      }
      out.get("map").add(t + " " + e.key() + ":" + v * v);
      for (char digit : Long.toString(v).toCharArray()) {
        out.get("flatmap").add(t + " " + e.key() + ":" + digit);
      }
      if (e.isLate()) {
        late++;
      } else {
        IntervalWindow w = windows.assignWindow(e.eventTime());
        onTimeByWindowAndKey
            .computeIfAbsent(w.maxTimestamp() + " " + e.key(), k -> new ArrayList<>())
            .add(e);
      }
    }
    assertThat("late events within the lateness", late, greaterThan(10));
    onTimeByWindowAndKey.forEach(
        (windowAndKey, group) -> {
          String end = windowAndKey.substring(0, windowAndKey.indexOf(' '));
          for (LateEvent l : group) {
            for (LateEvent r : group) {
              if (l.value() % 2 == 0 && r.value() % 2 != 0 && l.value() < r.value()) {
                out.get("join")
                    .add(end + " " + l.key() + ":" + l.value() + " + " + r.key() + ":" + r.value());
              }
            }
          }
        });
    out.values().forEach(Collections::sort);
    return out;
  }
}
