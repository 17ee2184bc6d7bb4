package dev.eventide.transforms;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LateEventGenerator;
import dev.eventide.generators.LatenessDistribution;
import dev.eventide.runtime.JobMetrics;
import dev.eventide.testing.runners.OnEachRunner;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.testing.streams.GatedReplay;
import dev.eventide.testing.streams.LateEventStreams;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;

/**
 * Late data on embedded Flink: the operators from the Aggregate against the same references as on
 * the DirectRunner, on every field. Flink's {@code TestStream} may deliver events before the
 * watermark meant to precede them, so the streams are replayed through a {@link GatedReplay}: at
 * each watermark move it waits until the new watermark has reached the stream's consumers, so
 * events meant to be late are late however loaded the machine is (no wall-clock pause decides it).
 *
 * <p>Each stream: 1,200 events, two per millisecond of arrival, a watermark every 20 ms, 30% of
 * them delayed by log-normal multiples of 20 ms — late within and beyond the allowed lateness — and
 * a dozen distinct values, so that identical tuples meet in one millisecond.
 */
class LateDataOnFlinkTest {
  private static final Duration PERIOD = Duration.millis(40);

  private static PCollection<Integer> lateStream(TestPipeline p, long seed) {
    LateEventGenerator generator =
        LateEventGenerator.builder()
            .setStart(new org.joda.time.Instant(0))
            .setWindow(PERIOD)
            .setEventsPerWindow(40)
            .setEvents(1_200)
            .setLateFraction(0.3)
            .setLateness(LatenessDistribution.logNormal(0, 1))
            .setMaxValue(6)
            .setSeed(seed)
            .build();
    return p.apply("Stream " + seed, LateEventStreams.gatedReplay(generator))
        .apply(
            "Value " + seed,
            MapElements.into(TypeDescriptors.integers()).via((LateEvent e) -> (int) e.value()));
  }

  /**
   * Bundles of one element, so that each Beam operator passes a watermark on at once (an operator
   * holds it back until its open bundle finishes, by default up to 1,000 elements or 1 s, so two
   * operators reading one stream could otherwise see an event on either side of a watermark).
   */
  private static void promptWatermarks(TestPipeline p) {
    p.getOptions().as(FlinkPipelineOptions.class).setMaxBundleSize(1L);
  }

  /**
   * Values, timestamps and windows are compared exactly; pane timing is not: Beam on Flink labels
   * the first pane of a window whose values all arrived late ON_TIME or LATE depending on how far
   * that GroupByKey's output watermark lags its input, which differs between the reference's
   * GroupByKey and E's. (On the DirectRunner every field is compared.)
   */
  @OnEachRunner(TestRunner.FLINK)
  void filterMapAndFlatMapEqualNativeWithLateData(TestPipeline p) {
    promptWatermarks(p);
    Duration lateness = Duration.millis(30);
    for (long seed = 1; seed <= 3; seed++) {
      PCollection<Integer> stream = lateStream(p, seed);
      StatelessOperatorsTest.compareAll(
          " #" + seed, stream, lateness, StatelessOperatorsTest.Compare.LATE_ON_FLINK);
      stream.apply("Count inputs " + seed, ParDo.of(new CountFn<>("inputs")));
      stream
          .apply(
              "Keep all " + seed,
              AggregateFilter.by((Integer x) -> true).withAllowedLateness(lateness))
          .apply("Count kept " + seed, ParDo.of(new CountFn<>("kept")));
    }
    PipelineResult result = p.run();
    result.waitUntilFinish();

    // The streams were late on Flink as meant: some tuples came out in late panes, some were
    // dropped beyond the lateness.
    long inputs = counter(result, "inputs");
    long kept = counter(result, "kept");
    assertTrue(counter(result, "kept LATE") > 0, "some tuples came out in late panes");
    assertTrue(kept < inputs, "some tuples were dropped: kept " + kept + " of " + inputs);
  }

  private static long counter(PipelineResult result, String name) {
    return JobMetrics.counter(result, LateDataOnFlinkTest.class.getName(), name);
  }

  /** Counts elements, and those in late panes. */
  private static final class CountFn<T> extends DoFn<T, Void> {
    private final Counter all;
    private final Counter late;

    CountFn(String name) {
      this.all = Metrics.counter(LateDataOnFlinkTest.class, name);
      this.late = Metrics.counter(LateDataOnFlinkTest.class, name + " LATE");
    }

    @ProcessElement
    public void process(PaneInfo pane) {
      all.inc();
      if (pane.getTiming() == PaneInfo.Timing.LATE) {
        late.inc();
      }
    }
  }
}
