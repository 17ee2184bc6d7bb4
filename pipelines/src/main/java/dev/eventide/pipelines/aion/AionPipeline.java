package dev.eventide.pipelines.aion;

import com.google.auto.value.AutoValue;
import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LateEventGenerator;
import dev.eventide.generators.LateEventSource;
import dev.eventide.pipelines.windows.LatenessGate;
import dev.eventide.pipelines.windows.WindowSteps;
import dev.eventide.tiering.TieredWindow;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
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
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;

/**
 * The Aion paper's micro-benchmarks, "average" and "bigrams": a window function of all of a
 * tumbling window's events ({@link AionWorkload}), over a {@link LateEventGenerator} stream with
 * late events, with allowed lateness. By default the windows are Eventide's {@link TieredWindow}
 * (past windows' events spill to a block store); {@link Settings#nativeWindowing()} runs Beam's own
 * windowing ({@code Window} with accumulating panes + {@code GroupByKey}) for comparison. Every
 * pane is written to {@code <output>/panes/}; {@link WindowReport} turns them into a per-window
 * summary. The final result of every window is the same either way and on every runner.
 *
 * <p>As in the paper, the whole stream is one key: each window's function sees all of its events.
 *
 * <p>Events late beyond the allowed lateness are set aside by the watermark they arrived under (see
 * {@link LatenessGate}) and counted in the metric {@code eventsBeyondAllowedLateness}, so the final
 * result per window is the same on every runner. The windowing itself keeps windows {@link
 * #WATERMARK_SKEW_WINDOWS} windows longer than the allowed lateness, so that a runner whose
 * watermark has moved on further than the source's by the time an event arrives does not drop what
 * the gate kept; what it drops all the same is counted in {@code eventsDroppedByWindowing} (0 in
 * every run we made).
 */
public final class AionPipeline {
  /** Namespace of the pipeline's Beam metrics. */
  public static final String METRICS_NAMESPACE = "eventide.aion";

  /**
   * With Beam's windowing, a window re-fires at most this often (processing time) while late events
   * arrive; its final pane, when it expires, includes everything. {@link TieredWindow} fires late
   * panes at watermark advances instead.
   */
  static final Duration LATE_FIRING_DELAY = Duration.standardSeconds(1);

  /** Extra windows of lateness the windowing tolerates beyond the gate's bound. */
  static final int WATERMARK_SKEW_WINDOWS = 2;

  private AionPipeline() {}

  /** What to run: the workload, the event stream, the allowed lateness and where output goes. */
  @AutoValue
  public abstract static class Settings {
    public abstract AionWorkload workload();

    public abstract LateEventGenerator events();

    public abstract Duration allowedLateness();

    /** Whether to run Beam's own windowing instead of {@link TieredWindow}. */
    public abstract boolean nativeWindowing();

    /** The {@link TieredWindow} block store's URI. */
    public abstract String store();

    /**
     * How long past windows' blocks outlive their lateness ({@link TieredWindow#withPurgeDelay}).
     */
    public abstract Duration purgeDelay();

    public abstract String outputDirectory();

    /**
     * The event before which a fault drill stands still until the job restarts from a checkpoint
     * ({@link LateEventSource#stalledUntilRestored}), or -1 for none.
     */
    public abstract long faultDrillAt();

    /**
     * Returns these settings with a fault drill before event {@code index}: once a checkpoint
     * covering the events before it has completed, the stream stands still until the job restarts
     * from a checkpoint, so that a worker killed then is certain to be recovered from.
     *
     * @throws IllegalArgumentException if {@code index} is not one of the stream's events
     */
    public Settings withFaultDrillAt(long index) {
      if (index < 0 || index >= events().events()) {
        throw new IllegalArgumentException(
            "the fault drill must be at one of the "
                + events().events()
                + " events, but was "
                + index);
      }
      return new AutoValue_AionPipeline_Settings(
          workload(),
          events(),
          allowedLateness(),
          nativeWindowing(),
          store(),
          purgeDelay(),
          outputDirectory(),
          index);
    }

    /**
     * Returns validated settings; the window is the generator's window.
     *
     * @throws IllegalArgumentException if {@code allowedLateness} is negative (a negative {@code
     *     purgeDelay} is refused when the pipeline is built)
     */
    public static Settings of(
        AionWorkload workload,
        LateEventGenerator events,
        Duration allowedLateness,
        boolean nativeWindowing,
        String store,
        Duration purgeDelay,
        String outputDirectory) {
      if (allowedLateness.isShorterThan(Duration.ZERO)) {
        throw new IllegalArgumentException(
            "allowedLateness must be >= 0, but was " + allowedLateness);
      }
      return new AutoValue_AionPipeline_Settings(
          workload,
          events,
          allowedLateness,
          nativeWindowing,
          store,
          purgeDelay,
          outputDirectory,
          -1);
    }
  }

  /** Adds the workload to {@code pipeline}. */
  public static void build(Pipeline pipeline, Settings settings) {
    FixedWindows windows = FixedWindows.of(settings.events().window());
    Duration tolerated =
        settings
            .allowedLateness()
            .plus(settings.events().window().multipliedBy(WATERMARK_SKEW_WINDOWS));
    PCollection<KV<Integer, KV<Long, Long>>> values =
        WindowSteps.readWithinLateness(
                pipeline,
                "LateEvents",
                settings.faultDrillAt() < 0
                    ? WindowSteps.read(pipeline, settings.events())
                    : LateEventSource.stalledUntilRestored(
                        settings.events(),
                        pipeline.getOptions().getJobName(),
                        settings.faultDrillAt()),
                settings.events(),
                settings.allowedLateness(),
                METRICS_NAMESPACE)
            .apply(
                "OneKeyWithEventTime",
                MapElements.into(
                        TypeDescriptors.kvs(
                            TypeDescriptors.integers(),
                            TypeDescriptors.kvs(TypeDescriptors.longs(), TypeDescriptors.longs())))
                    .via((LateEvent e) -> KV.of(0, KV.of(e.eventTime().getMillis(), e.value()))))
            .setCoder(
                KvCoder.of(VarIntCoder.of(), KvCoder.of(VarLongCoder.of(), VarLongCoder.of())));
    PCollection<PaneSummary> panes =
        settings.nativeWindowing()
            ? values.apply("BeamWindowing", new NativeWindows(windows, tolerated, settings))
            : values.apply("TieredWindowing", new TieredWindows(windows, tolerated, settings));
    panes.apply("WritePanes", ParDo.of(new PaneFileSink(settings.outputDirectory())));
  }

  /** The workload on {@link TieredWindow}; values it refuses as too late are counted. */
  private static final class TieredWindows
      extends PTransform<PCollection<KV<Integer, KV<Long, Long>>>, PCollection<PaneSummary>> {
    private final FixedWindows windows;
    private final Duration tolerated;
    private final Settings settings;

    TieredWindows(FixedWindows windows, Duration tolerated, Settings settings) {
      this.windows = windows;
      this.tolerated = tolerated;
      this.settings = settings;
    }

    @Override
    public PCollection<PaneSummary> expand(PCollection<KV<Integer, KV<Long, Long>>> values) {
      return WindowSteps.tiered(
              values,
              settings.workload().cliName(),
              TieredWindow.of(windows, settings.workload())
                  .withAllowedLateness(tolerated)
                  .withStore(settings.store())
                  .withPurgeDelay(settings.purgeDelay())
                  .withOutputCoder(WindowValue.coder()),
              METRICS_NAMESPACE)
          .apply("Summarize", ParDo.of(new Summarize()));
    }
  }

  /**
   * The workload on Beam's windowing: accumulating panes, late firings at most once per {@link
   * #LATE_FIRING_DELAY}, a final pane when the window expires.
   */
  private static final class NativeWindows
      extends PTransform<PCollection<KV<Integer, KV<Long, Long>>>, PCollection<PaneSummary>> {
    private final FixedWindows windows;
    private final Duration tolerated;
    private final Settings settings;

    NativeWindows(FixedWindows windows, Duration tolerated, Settings settings) {
      this.windows = windows;
      this.tolerated = tolerated;
      this.settings = settings;
    }

    @Override
    public PCollection<PaneSummary> expand(PCollection<KV<Integer, KV<Long, Long>>> values) {
      return values
          .apply(
              "WindowWithLateness",
              Window.<KV<Integer, KV<Long, Long>>>into(windows)
                  .triggering(
                      AfterWatermark.pastEndOfWindow()
                          .withLateFirings(
                              AfterProcessingTime.pastFirstElementInPane()
                                  .plusDelayOf(LATE_FIRING_DELAY)))
                  .withAllowedLateness(tolerated, Window.ClosingBehavior.FIRE_ALWAYS)
                  .accumulatingFiredPanes())
          .apply("GroupWindow", GroupByKey.create())
          .apply(settings.workload().cliName(), ParDo.of(new ApplyWorkload(settings.workload())));
    }
  }

  /** The window function over a pane of Beam's windowing: it sees all of the window's events. */
  private static final class ApplyWorkload
      extends DoFn<KV<Integer, Iterable<KV<Long, Long>>>, PaneSummary> {
    private final AionWorkload workload;

    ApplyWorkload(AionWorkload workload) {
      this.workload = workload;
    }

    @ProcessElement
    public void process(
        @Element KV<Integer, Iterable<KV<Long, Long>>> events,
        IntervalWindow window,
        PaneInfo pane,
        OutputReceiver<PaneSummary> out) {
      out.output(summary(window, pane, workload.apply(events.getKey(), window, events.getValue())));
    }
  }

  /** A {@link TieredWindow} result with its window and pane. */
  private static final class Summarize extends DoFn<KV<Integer, WindowValue>, PaneSummary> {
    @ProcessElement
    public void process(
        @Element KV<Integer, WindowValue> result,
        IntervalWindow window,
        PaneInfo pane,
        OutputReceiver<PaneSummary> out) {
      out.output(summary(window, pane, result.getValue()));
    }
  }

  private static PaneSummary summary(IntervalWindow window, PaneInfo pane, WindowValue value) {
    return new PaneSummary(
        window.start().getMillis(),
        window.end().getMillis(),
        pane.getIndex(),
        pane.getTiming().name(),
        pane.isLast(),
        value.count(),
        value.sum(),
        value.result());
  }
}
