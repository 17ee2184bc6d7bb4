package dev.eventide.pipelines.windows;

import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.DefaultTrigger;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.Never;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.transforms.windowing.Window.ClosingBehavior;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Turns the panes of a windowed aggregation with accumulating panes (each pane holds all of its
 * window's values so far) into one {@link FinalValue} per key and window: the last pane's value,
 * emitted once the window's allowed lateness is over, timestamped at the window's end plus that
 * lateness and held back until then, so a later windowed step (a join) receives it on time.
 *
 * <p>Why: a join or a further aggregation over panes pairs or sums intermediate values, and which
 * ones depends on how a runner splits late updates into panes. Over final values it is exact and
 * the same on every runner, at the price of waiting for the lateness to run out. The cut-off is
 * that of Beam's lateness: nothing reaches a window after its end plus {@code allowedLateness}, so
 * the input's allowed lateness must not exceed the one given here.
 *
 * <p>Cost: Beam's windowed {@code GroupByKey}, with a trigger that never fires, so each key and
 * window buffers its panes until Beam closes the window at its end plus the lateness and clears
 * them; a pane that reaches it later is dropped and counted by the runner as Beam's windowing
 * counts late data. Metrics (the namespace given): {@code finalValues} and {@code
 * windowsChangedLate} (the final values of windows that fired more than one pane).
 *
 * @param <K> the key; its coder must be deterministic
 * @param <V> the panes' values
 */
public final class FinalPanes<K, V>
    extends PTransform<PCollection<KV<K, V>>, PCollection<KV<K, FinalValue<V>>>> {
  private final Duration allowedLateness;
  private final String metricsNamespace;

  private FinalPanes(Duration allowedLateness, String metricsNamespace) {
    this.allowedLateness = allowedLateness;
    this.metricsNamespace = metricsNamespace;
  }

  /**
   * Returns the transform for windows of allowed lateness {@code allowedLateness} (≥ 0), counting
   * in the metrics namespace {@code metricsNamespace}.
   */
  public static <K, V> FinalPanes<K, V> afterLateness(
      Duration allowedLateness, String metricsNamespace) {
    if (allowedLateness.isShorterThan(Duration.ZERO)) {
      throw new IllegalArgumentException(
          "allowedLateness must be >= 0, but was " + allowedLateness);
    }
    return new FinalPanes<>(allowedLateness, metricsNamespace);
  }

  @Override
  public PCollection<KV<K, FinalValue<V>>> expand(PCollection<KV<K, V>> panes) {
    if (!(panes.getCoder() instanceof KvCoder<K, V> kvCoder)) {
      throw new IllegalArgumentException(
          "FinalPanes needs a KvCoder on its input, but " + panes + " has " + panes.getCoder());
    }
    WindowFn<?, ?> windowFn = panes.getWindowingStrategy().getWindowFn();
    TypeDescriptor<?> windowType = windowFn.getWindowTypeDescriptor();
    if (!windowFn.isNonMerging()
        || !TypeDescriptor.of(IntervalWindow.class).isSupertypeOf(windowType)) {
      throw new IllegalArgumentException(
          "FinalPanes needs windows with a start and an end that do not merge (fixed, sliding),"
              + " but "
              + panes
              + " is in windows of "
              + windowFn);
    }
    Coder<K> keyCoder = kvCoder.getKeyCoder();
    KvCoder<K, FinalValue<V>> outputCoder =
        KvCoder.of(keyCoder, FinalValue.coder(kvCoder.getValueCoder()));
    return panes
        .apply("WithPaneCount", ParDo.of(new WithPaneCount<K, V>()))
        .setCoder(outputCoder)
        // Beam's own lateness decides which panes count: a pane reaching a window after Beam
        // closed it is dropped here exactly as a windowed GroupByKey drops late data.
        .apply(
            "UntilExpiry",
            Window.<KV<K, FinalValue<V>>>configure()
                .triggering(Never.ever())
                .withAllowedLateness(allowedLateness, ClosingBehavior.FIRE_IF_NON_EMPTY)
                .withTimestampCombiner(TimestampCombiner.END_OF_WINDOW)
                .discardingFiredPanes())
        .apply("LastPane", Combine.perKey(new LastPane<V>()))
        .apply("AtExpiry", ParDo.of(new AtExpiry<K, V>(allowedLateness, metricsNamespace)))
        .setCoder(outputCoder)
        .apply(
            "IntoGlobalWindow",
            Window.<KV<K, FinalValue<V>>>into(new GlobalWindows())
                .triggering(DefaultTrigger.of())
                .withAllowedLateness(Duration.ZERO)
                .discardingFiredPanes());
  }

  /** Tags each pane's value with its window and how many panes the window has fired so far. */
  private static final class WithPaneCount<K, V> extends DoFn<KV<K, V>, KV<K, FinalValue<V>>> {
    @ProcessElement
    public void process(
        @Element KV<K, V> pane,
        BoundedWindow window,
        PaneInfo paneInfo,
        OutputReceiver<KV<K, FinalValue<V>>> out) {
      IntervalWindow w = (IntervalWindow) window;
      out.output(
          KV.of(
              pane.getKey(),
              new FinalValue<>(
                  w.start().getMillis(),
                  w.end().getMillis(),
                  paneInfo.getIndex() + 1,
                  pane.getValue())));
    }
  }

  /** The pane of the higher index (a window's panes so far); one value per window, not a list. */
  private static final class LastPane<V> extends Combine.BinaryCombineFn<FinalValue<V>> {
    @Override
    public FinalValue<V> apply(FinalValue<V> left, FinalValue<V> right) {
      return right.panes() > left.panes() ? right : left;
    }
  }

  /**
   * Timestamps a window's last pane at the window's end plus the lateness: the runner holds the
   * grouping's output watermark at the window's end until the pane goes out, so the later timestamp
   * is ahead of every step downstream.
   */
  private static final class AtExpiry<K, V>
      extends DoFn<KV<K, FinalValue<V>>, KV<K, FinalValue<V>>> {
    private final Duration allowedLateness;
    private final Counter finalValues;
    private final Counter changedLate;

    AtExpiry(Duration allowedLateness, String namespace) {
      this.allowedLateness = allowedLateness;
      this.finalValues = Metrics.counter(namespace, "finalValues");
      this.changedLate = Metrics.counter(namespace, "windowsChangedLate");
    }

    @ProcessElement
    public void process(
        @Element KV<K, FinalValue<V>> last, OutputReceiver<KV<K, FinalValue<V>>> out) {
      finalValues.inc();
      if (last.getValue().panes() > 1) {
        changedLate.inc();
      }
      Instant expires = new Instant(last.getValue().end()).plus(allowedLateness);
      if (expires.isAfter(GlobalWindow.INSTANCE.maxTimestamp())) {
        expires = GlobalWindow.INSTANCE.maxTimestamp();
      }
      out.outputWithTimestamp(last, expires);
    }
  }
}
