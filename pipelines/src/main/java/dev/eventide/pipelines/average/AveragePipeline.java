package dev.eventide.pipelines.average;

import com.google.auto.value.AutoValue;
import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LateEventGenerator;
import dev.eventide.generators.LateEventSource;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.AfterProcessingTime;
import org.apache.beam.sdk.transforms.windowing.AfterWatermark;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;

/**
 * The Aion paper's "average" workload: the average of a stream of random integers per tumbling
 * window, over a {@link LateEventGenerator} stream with late events, with allowed lateness. As in
 * the paper, the window function sees all of a window's events (panes accumulate), which is what
 * makes long lateness expensive. Every pane (on time, then at most one per {@link
 * #LATE_FIRING_DELAY} while late events arrive, then a final one when the window expires) is
 * written to {@code <output>/panes/}; {@link AverageReport} turns them into a per-window summary.
 *
 * <p>Events late beyond the allowed lateness are set aside by the watermark they arrived under (see
 * {@link LatenessGate}) and counted in the metric {@code eventsBeyondAllowedLateness}, so the final
 * result per window is the same on every runner. The aggregation itself keeps windows {@link
 * #WATERMARK_SKEW_WINDOWS} windows longer than the allowed lateness, so that a runner whose
 * watermark has moved on further than the source's by the time an event arrives does not drop what
 * the gate kept.
 */
public final class AveragePipeline {
  /** Namespace of the pipeline's Beam metrics. */
  public static final String METRICS_NAMESPACE = "eventide.average";

  /**
   * A window re-fires at most this often (processing time) while late events arrive; its final
   * pane, when it expires, includes everything.
   */
  static final Duration LATE_FIRING_DELAY = Duration.standardSeconds(1);

  /** Extra windows of lateness the aggregation tolerates beyond the gate's bound. */
  static final int WATERMARK_SKEW_WINDOWS = 2;

  private AveragePipeline() {}

  /** What to run: the event stream, the allowed lateness and where panes go. */
  @AutoValue
  public abstract static class Settings {
    public abstract LateEventGenerator events();

    public abstract Duration allowedLateness();

    public abstract String outputDirectory();

    /**
     * Returns validated settings; the window of the average is the generator's window.
     *
     * @throws IllegalArgumentException if {@code allowedLateness} is negative
     */
    public static Settings of(
        LateEventGenerator events, Duration allowedLateness, String outputDirectory) {
      if (allowedLateness.isShorterThan(Duration.ZERO)) {
        throw new IllegalArgumentException(
            "allowedLateness must be >= 0, but was " + allowedLateness);
      }
      return new AutoValue_AveragePipeline_Settings(events, allowedLateness, outputDirectory);
    }
  }

  /** Adds the workload to {@code pipeline}. */
  public static void build(Pipeline pipeline, Settings settings) {
    FixedWindows windows = FixedWindows.of(settings.events().window());
    PCollectionTuple gated =
        pipeline
            .apply("ReadLateEvents", LateEventSource.read(settings.events()))
            .apply(
                "SetAsideBeyondAllowedLateness",
                ParDo.of(new LatenessGate(windows, settings.allowedLateness()))
                    .withOutputTags(
                        LatenessGate.KEPT, TupleTagList.of(LatenessGate.BEYOND_LATENESS)));
    gated
        .get(LatenessGate.KEPT)
        .apply("AveragePerWindow", new WindowAverage(windows, settings.allowedLateness()))
        .apply("WritePanes", ParDo.of(new PaneFileSink(settings.outputDirectory())));
  }

  /**
   * Per-window count and sum of the event values, one {@link PaneSummary} per pane, accumulating,
   * with a final pane when the window expires.
   */
  static final class WindowAverage
      extends PTransform<PCollection<LateEvent>, PCollection<PaneSummary>> {
    private final FixedWindows windows;
    private final Duration allowedLateness;

    WindowAverage(FixedWindows windows, Duration allowedLateness) {
      this.windows = windows;
      this.allowedLateness = allowedLateness;
    }

    @Override
    public PCollection<PaneSummary> expand(PCollection<LateEvent> events) {
      Duration tolerated =
          allowedLateness.plus(windows.getSize().multipliedBy(WATERMARK_SKEW_WINDOWS));
      return events
          .apply(
              "WindowWithLateness",
              Window.<LateEvent>into(windows)
                  .triggering(
                      AfterWatermark.pastEndOfWindow()
                          .withLateFirings(
                              AfterProcessingTime.pastFirstElementInPane()
                                  .plusDelayOf(LATE_FIRING_DELAY)))
                  .withAllowedLateness(tolerated, Window.ClosingBehavior.FIRE_ALWAYS)
                  .accumulatingFiredPanes())
          .apply(
              "KeyByWindowOnly",
              MapElements.into(
                      TypeDescriptors.kvs(TypeDescriptors.integers(), TypeDescriptors.longs()))
                  .via((LateEvent e) -> KV.of(0, e.value())))
          .apply("GroupWindow", GroupByKey.create())
          .apply("AverageOfPane", ParDo.of(new SummarizePane()));
    }
  }

  /**
   * The window function: like the paper's, it sees all of the window's events (the pane accumulates
   * them), not an incremental aggregate.
   */
  private static final class SummarizePane extends DoFn<KV<Integer, Iterable<Long>>, PaneSummary> {
    @ProcessElement
    public void process(
        @Element KV<Integer, Iterable<Long>> events,
        IntervalWindow window,
        PaneInfo pane,
        OutputReceiver<PaneSummary> out) {
      CountSum value = CountSum.EMPTY;
      for (long v : events.getValue()) {
        value = value.plus(v);
      }
      out.output(
          new PaneSummary(
              window.start().getMillis(),
              window.end().getMillis(),
              pane.getIndex(),
              pane.getTiming().name(),
              pane.isLast(),
              value.count(),
              value.sum()));
    }
  }
}
