package dev.eventide.transforms;

import java.util.Collections;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.InstantCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.coders.VoidCoder;
import org.apache.beam.sdk.metrics.Counter;
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
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.windowing.DefaultTrigger;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The Beam rendering of an Aggregate over δ windows keyed by all attributes: one stateful step in
 * the global window keyed by tuple and timestamp τ — exactly the Aggregate's window instance —
 * instead of δ windows, a {@code GroupByKey} and an emitting step. Every tuple of an instance
 * equals its key, so the state is a count of copies.
 *
 * <p>Beam's semantics for the δ window, kept exactly: the copies that arrive while the watermark
 * has not passed τ are counted, and f_O runs on them at an event-time timer at τ, which holds the
 * output watermark there (the on-time pane; a {@code GroupByKey} holds the watermark at the
 * window's end the same way). A copy that arrives later, while τ + L is not behind the watermark,
 * is aggregated at once, on its own, in a late pane (Beam fires a late element's pane at once; on
 * the DirectRunner it groups the late copies of one bundle, here each copy is its own firing, so
 * f_O sees one copy where it might have seen several: for the tuple-keyed Aggregates Eventide
 * builds, whose outputs stand for as many copies as they met, the multiset of results is the same).
 * A later copy is dropped, as Beam drops a tuple whose window expired (both counted in {@link
 * TransformMetrics} when the Aggregate is an operator's first step). Only the on-time count is
 * state, cleared when it fires, so unlike a stateful step in δ windows nothing holds the watermark
 * back for L. Outputs are in δ windows with allowed lateness L, as the {@code GroupByKey}'s would
 * be.
 */
final class TupleInstanceStep<T, OutputT> extends PTransform<PCollection<T>, PCollection<OutputT>> {
  private final Coder<T> tupleCoder;
  private final Aggregate.MultiWindowFunction<T, T, OutputT> outputFn;
  private final Coder<OutputT> outputCoder;
  private final Duration allowedLateness;
  private final @Nullable SerializableFunction<T, Boolean> lateKeys;
  private final boolean countsLateness;

  TupleInstanceStep(
      Coder<T> tupleCoder,
      Aggregate.MultiWindowFunction<T, T, OutputT> outputFn,
      Coder<OutputT> outputCoder,
      Duration allowedLateness,
      @Nullable SerializableFunction<T, Boolean> lateKeys,
      boolean countsLateness) {
    this.tupleCoder = tupleCoder;
    this.outputFn = outputFn;
    this.outputCoder = outputCoder;
    this.allowedLateness = allowedLateness;
    this.lateKeys = lateKeys;
    this.countsLateness = countsLateness;
  }

  @Override
  public PCollection<OutputT> expand(PCollection<T> input) {
    return input
        .apply(
            "GlobalWindow",
            Window.<T>into(new GlobalWindows())
                .triggering(DefaultTrigger.of())
                .withAllowedLateness(Duration.ZERO)
                .discardingFiredPanes())
        .apply("KeyByAllAttributesAndTimestamp", ParDo.of(new Loop.KeyByTupleAndTimestampFn<T>()))
        .setCoder(KvCoder.of(KvCoder.of(tupleCoder, InstantCoder.of()), VoidCoder.of()))
        .apply(
            "AggregatePerInstance",
            ParDo.of(new InstanceFn<>(outputFn, allowedLateness, lateKeys, countsLateness)))
        .setCoder(outputCoder)
        .apply(
            "DeltaWindows",
            Window.<OutputT>into(WindowSpec.delta().windowFn())
                .triggering(DefaultTrigger.of())
                .withAllowedLateness(allowedLateness)
                .discardingFiredPanes());
  }

  /**
   * Whether a tuple at τ is late beyond the allowed lateness under {@code watermark}: Beam's rule
   * for its δ window, τ + L behind the watermark. A lateness past the end of time never expires.
   */
  static boolean expired(Instant tau, Duration lateness, Instant watermark) {
    long behind = watermark.getMillis() - tau.getMillis();
    return behind > lateness.getMillis();
  }

  private static final class InstanceFn<T, OutputT>
      extends DoFn<KV<KV<T, Instant>, Void>, OutputT> {
    // How many on-time copies of the key's tuple wait for the firing at τ.
    private static final String COPIES = "copies";
    // Fires the on-time pane at τ, holding the output watermark there.
    private static final String FIRE = "fire";

    private static final PaneInfo ON_TIME =
        PaneInfo.createPane(true, false, PaneInfo.Timing.ON_TIME, 0, 0);
    private static final PaneInfo LATE =
        PaneInfo.createPane(false, false, PaneInfo.Timing.LATE, 1, 1);

    @StateId(COPIES)
    private final StateSpec<ValueState<Long>> copiesSpec = StateSpecs.value(VarLongCoder.of());

    @TimerId(FIRE)
    private final TimerSpec fireSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    private final Aggregate.MultiWindowFunction<T, T, OutputT> outputFn;
    private final Duration allowedLateness;
    private final @Nullable SerializableFunction<T, Boolean> lateKeys;
    private final boolean countsLateness;
    private final Counter late = TransformMetrics.lateTuples();
    private final Counter dropped = TransformMetrics.droppedTuples();

    InstanceFn(
        Aggregate.MultiWindowFunction<T, T, OutputT> outputFn,
        Duration allowedLateness,
        @Nullable SerializableFunction<T, Boolean> lateKeys,
        boolean countsLateness) {
      this.outputFn = outputFn;
      this.allowedLateness = allowedLateness;
      this.lateKeys = lateKeys;
      this.countsLateness = countsLateness;
    }

    @ProcessElement
    public void process(
        @Element KV<KV<T, Instant>, Void> copy,
        @StateId(COPIES) ValueState<Long> copies,
        @TimerId(FIRE) Timer fire,
        OutputReceiver<OutputT> out) {
      T tuple = copy.getKey().getKey();
      Instant tau = copy.getKey().getValue();
      Instant watermark = fire.getCurrentRelativeTime();
      if (!watermark.isAfter(tau)) {
        Long seen = copies.read();
        if (seen == null) {
          fire.withOutputTimestamp(tau).set(tau);
          seen = 0L;
        }
        copies.write(seen + 1);
        return;
      }
      if (expired(tau, allowedLateness, watermark)) {
        if (countsLateness) {
          dropped.inc();
        }
        return;
      }
      if (countsLateness) {
        late.inc();
      }
      emit(tuple, tau, 1, LATE, out);
    }

    @OnTimer(FIRE)
    public void onFire(
        @Key KV<T, Instant> key,
        @StateId(COPIES) ValueState<Long> copies,
        OutputReceiver<OutputT> out) {
      Long count = copies.read();
      copies.clear();
      if (count == null) {
        return;
      }
      T tuple = key.getKey();
      boolean relabel = lateKeys != null && lateKeys.apply(tuple);
      emit(tuple, key.getValue(), count, relabel ? LATE : ON_TIME, out);
    }

    private void emit(
        T tuple, Instant tau, long count, PaneInfo pane, OutputReceiver<OutputT> out) {
      if (count > Integer.MAX_VALUE) {
        throw new IllegalStateException(
            String.format(
                "an Aggregate met %d copies of one tuple at %s, more than a list can hold: %s",
                count, tau, tuple));
      }
      IntervalWindow window = new IntervalWindow(tau, WindowSpec.DELTA);
      for (OutputT output :
          outputFn.apply(window, tuple, Collections.nCopies((int) count, tuple))) {
        out.builder(output).setPaneInfo(pane).output();
      }
    }
  }
}
