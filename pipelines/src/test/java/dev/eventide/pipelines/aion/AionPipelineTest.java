package dev.eventide.pipelines.aion;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;

import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LateEventGenerator;
import dev.eventide.generators.LatenessDistribution;
import dev.eventide.testing.runners.OnEachRunner;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Aion pipelines against a reference computed in plain Java straight from the generated events:
 * for every window, the events that arrived while the window was within the allowed lateness, their
 * count, sum, average and most frequent bigram. Each workload on {@code TieredWindow} and on Beam's
 * windowing, on the DirectRunner and embedded Flink.
 */
class AionPipelineTest {
  @TempDir Path output;

  /** "count sum result" per window start, of the events Beam's lateness rule keeps. */
  private static Map<Long, String> reference(
      AionWorkload workload, LateEventGenerator events, Duration lateness) {
    FixedWindows windows = FixedWindows.of(events.window());
    Map<Long, List<LateEvent>> kept = new TreeMap<>();
    for (LateEvent e : events) {
      IntervalWindow w = windows.assignWindow(e.eventTime());
      if (!w.maxTimestamp().plus(lateness).isBefore(e.watermark())) {
        kept.computeIfAbsent(w.start().getMillis(), k -> new ArrayList<>()).add(e);
      }
    }
    Map<Long, String> expected = new TreeMap<>();
    kept.forEach(
        (start, list) -> {
          long sum = list.stream().mapToLong(LateEvent::value).sum();
          String result =
              workload == AionWorkload.AVERAGE
                  ? String.format(Locale.ROOT, "%.3f", sum / (double) list.size())
                  : topBigram(list);
          expected.put(start, list.size() + " " + sum + " " + result);
        });
    return expected;
  }

  /** Counts every pair of neighbours in event-time order; the most frequent, ties alphabetical. */
  private static String topBigram(List<LateEvent> events) {
    List<String> words =
        events.stream()
            .sorted(Comparator.comparing(LateEvent::eventTime).thenComparingLong(LateEvent::value))
            .map(e -> "w" + (e.value() % 200))
            .collect(Collectors.toList());
    Map<String, Long> pairs =
        java.util.stream.IntStream.range(1, words.size())
            .mapToObj(i -> words.get(i - 1) + " " + words.get(i))
            .collect(
                Collectors.groupingBy(Function.identity(), TreeMap::new, Collectors.counting()));
    long best = pairs.values().stream().mapToLong(Long::longValue).max().orElse(0);
    return pairs.entrySet().stream()
        .filter(e -> e.getValue() == best)
        .findFirst() // the TreeMap is in alphabetical order
        .map(e -> e.getKey() + " x" + best)
        .orElse("-");
  }

  private void assertMatchesReference(
      TestPipeline p,
      AionWorkload workload,
      boolean nativeWindowing,
      LateEventGenerator events,
      Duration lateness) {
    AionPipeline.build(
        p,
        AionPipeline.Settings.of(
            workload,
            events,
            lateness,
            nativeWindowing,
            output.resolve("blocks").toUri().toString(),
            Duration.ZERO,
            output.toString()));
    p.run().waitUntilFinish();
    WindowReport report = WindowReport.read(output);
    Map<Long, String> actual =
        report.windows().stream()
            .collect(
                Collectors.toMap(
                    WindowReport.WindowResult::windowStart,
                    w -> w.count() + " " + w.sum() + " " + w.result(),
                    (a, b) -> a,
                    TreeMap::new));
    assertThat(actual, equalTo(reference(workload, events, lateness)));
    if (nativeWindowing) {
      report.windows().forEach(w -> assertThat("final pane of " + w, w.complete(), equalTo(true)));
    }
  }

  private static LateEventGenerator logNormal() {
    return LateEventGenerator.builder()
        .setEvents(4_000)
        .setEventsPerWindow(400)
        .setSeed(11)
        .build();
  }

  @OnEachRunner
  void averageOnTieredWindowMatchesTheReference(TestPipeline p) {
    LateEventGenerator events = logNormal();
    // Two windows of lateness: log-normal delays drop a few percent of the events.
    Duration lateness = events.window().multipliedBy(2);
    assertThat(
        reference(AionWorkload.AVERAGE, events, lateness).values().stream()
            .mapToLong(v -> Long.parseLong(v.split(" ")[0]))
            .sum(),
        greaterThan(3_000L));
    assertMatchesReference(p, AionWorkload.AVERAGE, false, events, lateness);
  }

  @OnEachRunner
  void averageOnBeamWindowingMatchesTheReference(TestPipeline p) {
    LateEventGenerator events = logNormal();
    assertMatchesReference(p, AionWorkload.AVERAGE, true, events, events.window().multipliedBy(2));
  }

  @OnEachRunner
  void bigramsOnTieredWindowMatchTheReference(TestPipeline p) {
    LateEventGenerator events = logNormal().toBuilder().setMaxValue(1_000).setSeed(3).build();
    assertMatchesReference(p, AionWorkload.BIGRAMS, false, events, events.window().multipliedBy(3));
  }

  @OnEachRunner
  void bigramsOnBeamWindowingMatchTheReference(TestPipeline p) {
    LateEventGenerator events = logNormal().toBuilder().setMaxValue(1_000).setSeed(3).build();
    assertMatchesReference(p, AionWorkload.BIGRAMS, true, events, events.window().multipliedBy(3));
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
    assertMatchesReference(p, AionWorkload.AVERAGE, false, events, Duration.ZERO);
  }

  @Test
  void bigramsCountNeighboursInEventTimeOrder() {
    // w1 w2 w1 w2 w3: "w1 w2" twice; "w2 w1" and "w2 w3" once
    assertThat(Bigrams.mostFrequent(new long[] {1, 2, 201, 402, 3}), equalTo("w1 w2 x2"));
    // every pair once: the first alphabetically
    assertThat(Bigrams.mostFrequent(new long[] {9, 5, 7}), equalTo("w5 w7 x1"));
    assertThat(Bigrams.mostFrequent(new long[] {4}), equalTo("-"));
  }
}
