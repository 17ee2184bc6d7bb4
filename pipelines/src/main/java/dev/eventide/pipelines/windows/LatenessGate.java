package dev.eventide.pipelines.windows;

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
 *
 * <p>Metrics (the namespace given): {@code eventsRead}, {@code eventsLate} (kept although behind
 * the watermark), {@code eventsBeyondAllowedLateness}.
 */
public final class LatenessGate extends DoFn<LateEvent, LateEvent> {
  /** The events a window of the given windows still accepts. */
  public static final TupleTag<LateEvent> KEPT = new TupleTag<>() {};

  /** The events that came after their window's allowed lateness. */
  public static final TupleTag<LateEvent> BEYOND_LATENESS = new TupleTag<>() {};

  private final Counter read;
  private final Counter late;
  private final Counter beyond;
  private final FixedWindows windows;
  private final Duration allowedLateness;

  /**
   * Judges each event by its window of {@code windows} and {@code allowedLateness}, counting in
   * {@code metricsNamespace}.
   */
  public LatenessGate(FixedWindows windows, Duration allowedLateness, String metricsNamespace) {
    this.windows = windows;
    this.allowedLateness = allowedLateness;
    this.read = Metrics.counter(metricsNamespace, "eventsRead");
    this.late = Metrics.counter(metricsNamespace, "eventsLate");
    this.beyond = Metrics.counter(metricsNamespace, "eventsBeyondAllowedLateness");
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
