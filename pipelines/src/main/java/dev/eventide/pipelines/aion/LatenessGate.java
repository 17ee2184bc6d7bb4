package dev.eventide.pipelines.aion;

import dev.eventide.generators.LateEvent;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.values.TupleTag;
import org.joda.time.Duration;

/**
 * Splits events into those the average keeps and those late beyond the allowed lateness, deciding
 * by the watermark each event arrived under. Beam's own drop decision depends on how far a runner's
 * watermark has travelled when the event reaches the aggregation, which differs between runners and
 * runs; deciding here, from the source's watermark, makes the result reproducible everywhere.
 * Dropped events go to {@link #BEYOND_LATENESS} and are counted, never lost silently.
 */
final class LatenessGate extends DoFn<LateEvent, LateEvent> {
  static final TupleTag<LateEvent> KEPT = new TupleTag<>() {};
  static final TupleTag<LateEvent> BEYOND_LATENESS = new TupleTag<>() {};

  private final Counter read = Metrics.counter(AionPipeline.METRICS_NAMESPACE, "eventsRead");
  private final Counter late = Metrics.counter(AionPipeline.METRICS_NAMESPACE, "eventsLate");
  private final Counter beyond =
      Metrics.counter(AionPipeline.METRICS_NAMESPACE, "eventsBeyondAllowedLateness");
  private final FixedWindows windows;
  private final Duration allowedLateness;

  LatenessGate(FixedWindows windows, Duration allowedLateness) {
    this.windows = windows;
    this.allowedLateness = allowedLateness;
  }

  @ProcessElement
  public void process(@Element LateEvent event, MultiOutputReceiver out) {
    read.inc();
    IntervalWindow window = windows.assignWindow(event.eventTime());
    // Beam's rule: a window expires once maxTimestamp + allowedLateness is before the watermark.
    if (window.maxTimestamp().plus(allowedLateness).isBefore(event.watermark())) {
      beyond.inc();
      out.get(BEYOND_LATENESS).output(event);
      return;
    }
    if (event.isLate()) {
      late.inc();
    }
    out.get(KEPT).output(event);
  }
}
