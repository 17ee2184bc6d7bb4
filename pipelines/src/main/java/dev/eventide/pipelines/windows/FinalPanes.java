package dev.eventide.pipelines.windows;

import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.Window;
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
 * <p>Cost: a keyed step in the global window, one small state cell and one event-time timer per key
 * and window, cleared when the final value goes out. Metrics (the namespace given): {@code
 * finalValues}, {@code windowsChangedLate} (the final values of windows that fired more than one
 * pane) and {@code keysHoldingState} (keys and windows whose final value is still to go out).
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
    FinalValue.FinalValueCoder<V> valueCoder =
        FinalValue.FinalValueCoder.of(kvCoder.getValueCoder());
    return panes
        .apply("WithWindow", ParDo.of(new WithWindow<K, V>()))
        .setCoder(KvCoder.of(KvCoder.of(keyCoder, VarLongCoder.of()), valueCoder))
        .apply("IntoGlobalWindow", Window.into(new GlobalWindows()))
        .apply(
            "KeepLastPane",
            ParDo.of(
                new KeepLastPane<K, V>(
                    allowedLateness, KvCoder.of(keyCoder, valueCoder), metricsNamespace)))
        .setCoder(KvCoder.of(keyCoder, valueCoder));
  }

  /** Keys each pane by its key and window start, its value by window and panes so far. */
  private static final class WithWindow<K, V>
      extends DoFn<KV<K, V>, KV<KV<K, Long>, FinalValue<V>>> {
    @ProcessElement
    public void process(
        @Element KV<K, V> pane,
        BoundedWindow window,
        PaneInfo paneInfo,
        OutputReceiver<KV<KV<K, Long>, FinalValue<V>>> out) {
      IntervalWindow w = (IntervalWindow) window;
      out.output(
          KV.of(
              KV.of(pane.getKey(), w.start().getMillis()),
              new FinalValue<>(
                  w.start().getMillis(),
                  w.end().getMillis(),
                  paneInfo.getIndex() + 1,
                  pane.getValue())));
    }
  }

  /** Keeps the pane of the highest index per key and window; emits it when the window expires. */
  private static final class KeepLastPane<K, V>
      extends DoFn<KV<KV<K, Long>, FinalValue<V>>, KV<K, FinalValue<V>>> {
    private static final String LAST = "last";
    private static final String EXPIRY = "expiry";

    @StateId(LAST)
    private final StateSpec<ValueState<KV<K, FinalValue<V>>>> last;

    @TimerId(EXPIRY)
    private final TimerSpec expiry = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    private final Duration allowedLateness;
    private final Counter finalValues;
    private final Counter changedLate;
    private final Counter keys;

    KeepLastPane(
        Duration allowedLateness, Coder<KV<K, FinalValue<V>>> stateCoder, String namespace) {
      this.allowedLateness = allowedLateness;
      this.last = StateSpecs.value(stateCoder);
      this.finalValues = Metrics.counter(namespace, "finalValues");
      this.changedLate = Metrics.counter(namespace, "windowsChangedLate");
      this.keys = Metrics.counter(namespace, "keysHoldingState");
    }

    @ProcessElement
    public void process(
        @Element KV<KV<K, Long>, FinalValue<V>> pane,
        @StateId(LAST) ValueState<KV<K, FinalValue<V>>> last,
        @TimerId(EXPIRY) Timer expiry) {
      KV<K, FinalValue<V>> kept = last.read();
      FinalValue<V> value = pane.getValue();
      if (kept == null) {
        // Beam accepts a window's values until the watermark passes end - 1 ms + lateness; the
        // input holds its watermark at or before then until its last pane is out.
        Instant expires = new Instant(value.end()).plus(allowedLateness);
        if (expires.isAfter(GlobalWindow.INSTANCE.maxTimestamp())) {
          expires = GlobalWindow.INSTANCE.maxTimestamp();
        }
        expiry.withOutputTimestamp(expires).set(expires);
        keys.inc();
      }
      if (kept == null || value.panes() > kept.getValue().panes()) {
        last.write(KV.of(pane.getKey().getKey(), value));
      }
    }

    @OnTimer(EXPIRY)
    public void onExpiry(
        @StateId(LAST) ValueState<KV<K, FinalValue<V>>> last,
        OutputReceiver<KV<K, FinalValue<V>>> out) {
      KV<K, FinalValue<V>> kept = last.read();
      if (kept == null) {
        return;
      }
      finalValues.inc();
      if (kept.getValue().panes() > 1) {
        changedLate.inc();
      }
      out.output(kept);
      last.clear();
      keys.dec();
    }
  }
}
