package dev.eventide.transforms;

import com.google.auto.value.AutoValue;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.windowing.DefaultTrigger;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;

/**
 * The paper's windowed Aggregate A(WA, WS, f_K, f_O, L): the one primitive every Eventide operator
 * is built from.
 *
 * <p>Tuples are grouped per key {@code f_K(t)} and window instance γ = {@code [ℓ·WA, ℓ·WA + WS)}.
 * When the watermark passes the end of γ, {@code f_O(γ, key, γ.ζ)} is called with all of the
 * instance's tuples and returns <em>at most one</em> output, timestamped {@code γ.l + WS − δ}
 * (Beam's {@code IntervalWindow.maxTimestamp()}). A tuple that arrives after that but while {@code
 * γ.l + WS − δ + L} is not behind the watermark is still processed: panes are discarding, so {@code
 * f_O} then runs again on the late tuples alone and may emit a further output, in a late pane.
 * Later tuples are dropped. The multi-output variant A+ ({@link #multiOutput}) may emit any number
 * of outputs per firing; the paper keeps it for comparison.
 *
 * <pre>{@code
 * PCollection<KV<String, Long>> counts = events.apply(
 *     Aggregate.of(
 *             WindowSpec.tumbling(Duration.standardMinutes(1)),
 *             Event::user, StringUtf8Coder.of(),
 *             (window, user, tuples) -> Optional.of(KV.of(user, (long) tuples.size())),
 *             KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of()))
 *         .withAllowedLateness(Duration.standardMinutes(10)));
 * }</pre>
 *
 * <p>In Beam: {@code Window.into} (fixed or sliding, {@code END_OF_WINDOW} timestamps, discarding,
 * allowed lateness L), then keys, {@code GroupByKey} and one step that emits the outputs. Cost: one
 * shuffle; each instance's tuples are held in runner state until it fires. An Aggregate over δ
 * windows keyed by all attributes ({@link #byAllAttributes}), whose instances are one tuple at one
 * timestamp, is rendered instead as one stateful step keyed by tuple and timestamp that counts the
 * copies (the same semantics; one shuffle, and a count in state rather than the tuples).
 *
 * @param <InputT> the tuples' type
 * @param <KeyT> f_K's result; its coder must be deterministic, because keys are compared by their
 *     encoding
 * @param <OutputT> f_O's result
 */
@AutoValue
public abstract class Aggregate<InputT, KeyT, OutputT>
    extends PTransform<PCollection<InputT>, PCollection<OutputT>> {

  /** f_O of A: the instance, its key and its tuples to at most one output. */
  @FunctionalInterface
  public interface WindowFunction<KeyT, InputT, OutputT> extends Serializable {
    Optional<OutputT> apply(IntervalWindow window, KeyT key, List<InputT> tuples);
  }

  /** f_O of A+: the instance, its key and its tuples to any number of outputs. */
  @FunctionalInterface
  public interface MultiWindowFunction<KeyT, InputT, OutputT> extends Serializable {
    Iterable<OutputT> apply(IntervalWindow window, KeyT key, List<InputT> tuples);
  }

  abstract WindowSpec windows();

  abstract SerializableFunction<InputT, KeyT> keyFn();

  abstract Coder<KeyT> keyCoder();

  abstract MultiWindowFunction<KeyT, InputT, OutputT> outputFn();

  abstract Coder<OutputT> outputCoder();

  abstract Duration allowedLateness();

  abstract boolean atMostOne();

  // Over δ windows keyed by all attributes (f_K is the identity): a TupleInstanceStep.
  abstract boolean keyedByTuple();

  // Keys whose tuples were late upstream; their outputs go in late panes. Null: Beam's panes.
  abstract @Nullable SerializableFunction<KeyT, Boolean> lateKeys();

  // Counts the late and dropped tuples of its input: set on an operator's first step.
  abstract boolean countsLateness();

  abstract Builder<InputT, KeyT, OutputT> toBuilder();

  @AutoValue.Builder
  abstract static class Builder<InputT, KeyT, OutputT> {
    abstract Builder<InputT, KeyT, OutputT> setWindows(WindowSpec windows);

    abstract Builder<InputT, KeyT, OutputT> setKeyFn(SerializableFunction<InputT, KeyT> keyFn);

    abstract Builder<InputT, KeyT, OutputT> setKeyCoder(Coder<KeyT> keyCoder);

    abstract Builder<InputT, KeyT, OutputT> setOutputFn(
        MultiWindowFunction<KeyT, InputT, OutputT> outputFn);

    abstract Builder<InputT, KeyT, OutputT> setOutputCoder(Coder<OutputT> outputCoder);

    abstract Builder<InputT, KeyT, OutputT> setAllowedLateness(Duration allowedLateness);

    abstract Builder<InputT, KeyT, OutputT> setAtMostOne(boolean atMostOne);

    abstract Builder<InputT, KeyT, OutputT> setKeyedByTuple(boolean keyedByTuple);

    abstract Builder<InputT, KeyT, OutputT> setLateKeys(
        @Nullable SerializableFunction<KeyT, Boolean> lateKeys);

    abstract Builder<InputT, KeyT, OutputT> setCountsLateness(boolean countsLateness);

    abstract Aggregate<InputT, KeyT, OutputT> build();
  }

  /**
   * Returns the Aggregate A(WA, WS, f_K, f_O, L = 0) that emits at most one output per window
   * instance and key.
   *
   * @throws IllegalArgumentException if {@code keyCoder} is not deterministic
   */
  public static <InputT, KeyT, OutputT> Aggregate<InputT, KeyT, OutputT> of(
      WindowSpec windows,
      SerializableFunction<InputT, KeyT> keyFn,
      Coder<KeyT> keyCoder,
      WindowFunction<KeyT, InputT, OutputT> outputFn,
      Coder<OutputT> outputCoder) {
    return Aggregate.<InputT, KeyT, OutputT>builder(windows, keyFn, keyCoder, outputCoder)
        .setOutputFn(
            (window, key, tuples) ->
                outputFn.apply(window, key, tuples).map(List::of).orElseGet(List::of))
        .setAtMostOne(true)
        .build();
  }

  /**
   * Returns the relaxed Aggregate A+ whose f_O may emit any number of outputs per window instance
   * and key, all timestamped at the end of the instance.
   *
   * @throws IllegalArgumentException if {@code keyCoder} is not deterministic
   */
  public static <InputT, KeyT, OutputT> Aggregate<InputT, KeyT, OutputT> multiOutput(
      WindowSpec windows,
      SerializableFunction<InputT, KeyT> keyFn,
      Coder<KeyT> keyCoder,
      MultiWindowFunction<KeyT, InputT, OutputT> outputFn,
      Coder<OutputT> outputCoder) {
    return Aggregate.<InputT, KeyT, OutputT>builder(windows, keyFn, keyCoder, outputCoder)
        .setOutputFn(outputFn)
        .setAtMostOne(false)
        .build();
  }

  /**
   * Returns an Aggregate over δ windows keyed by all attributes: each instance holds only identical
   * tuples with one timestamp, and its output keeps that timestamp (the paper's Lemma 2). Tuples
   * are compared by their encoding under {@code tupleCoder}, which must be deterministic.
   */
  public static <T, OutputT> Aggregate<T, T, OutputT> byAllAttributes(
      Coder<T> tupleCoder, WindowFunction<T, T, OutputT> outputFn, Coder<OutputT> outputCoder) {
    return of(WindowSpec.delta(), t -> t, tupleCoder, outputFn, outputCoder).toBuilder()
        .setKeyedByTuple(true)
        .build();
  }

  /**
   * As {@link #byAllAttributes}, for an f_O that emits exactly one output, which may be null (an
   * {@code Optional} cannot hold it): X's last step, emitting items that Beam's element-wise
   * transforms would pass through as they are.
   */
  static <T, OutputT> Aggregate<T, T, OutputT> byAllAttributesEmittingOne(
      Coder<T> tupleCoder,
      MultiWindowFunction<T, T, OutputT> outputFn,
      Coder<OutputT> outputCoder) {
    return Aggregate.<T, T, OutputT>builder(WindowSpec.delta(), t -> t, tupleCoder, outputCoder)
        .setOutputFn(outputFn)
        .setAtMostOne(true)
        .setKeyedByTuple(true)
        .build();
  }

  private static <InputT, KeyT, OutputT> Builder<InputT, KeyT, OutputT> builder(
      WindowSpec windows,
      SerializableFunction<InputT, KeyT> keyFn,
      Coder<KeyT> keyCoder,
      Coder<OutputT> outputCoder) {
    requireDeterministic(keyCoder, "f_K's key coder");
    return new AutoValue_Aggregate.Builder<InputT, KeyT, OutputT>()
        .setWindows(windows)
        .setKeyFn(keyFn)
        .setKeyCoder(keyCoder)
        .setOutputCoder(outputCoder)
        .setAllowedLateness(Duration.ZERO)
        .setKeyedByTuple(false)
        .setCountsLateness(false);
  }

  /**
   * Returns the same Aggregate counting its late and dropped input tuples in {@link
   * TransformMetrics} (an Aggregate over δ windows keyed by all attributes only): an operator's
   * first step, which sees the operator's input.
   */
  Aggregate<InputT, KeyT, OutputT> countingLateness() {
    return toBuilder().setCountsLateness(true).build();
  }

  /**
   * Returns the same Aggregate with allowed lateness L.
   *
   * @throws IllegalArgumentException if {@code allowedLateness} is negative
   */
  public Aggregate<InputT, KeyT, OutputT> withAllowedLateness(Duration allowedLateness) {
    if (allowedLateness.isShorterThan(Duration.ZERO)) {
      throw new IllegalArgumentException(
          "allowedLateness must be >= 0, but was " + allowedLateness);
    }
    return toBuilder().setAllowedLateness(allowedLateness).build();
  }

  /**
   * Returns the same Aggregate emitting the outputs of keys for which {@code isLate} holds in late
   * panes, even where its own window is on time. X's last step uses it: a pending loop firing holds
   * the watermark back, so X's last step can see a looped tuple on time, yet an output unwrapped
   * from a late input is late, as the output of Beam's element-wise transforms keeps its input's
   * pane.
   */
  Aggregate<InputT, KeyT, OutputT> keepingLatenessOf(SerializableFunction<KeyT, Boolean> isLate) {
    return toBuilder().setLateKeys(isLate).build();
  }

  /** L. */
  public Duration getAllowedLateness() {
    return allowedLateness();
  }

  /** Γ(WA, WS). */
  public WindowSpec getWindows() {
    return windows();
  }

  /** Whether this is A (at most one output per firing) rather than A+. */
  public boolean emitsAtMostOne() {
    return atMostOne();
  }

  static void requireDeterministic(Coder<?> coder, String role) {
    try {
      coder.verifyDeterministic();
    } catch (Coder.NonDeterministicException e) {
      throw new IllegalArgumentException(
          String.format(
              "%s %s is not deterministic, but Eventide compares keys by their encoding, so equal"
                  + " keys must always encode to equal bytes: %s",
              role, coder, e.getMessage()),
          e);
    }
  }

  @Override
  public PCollection<OutputT> expand(PCollection<InputT> input) {
    if (keyedByTuple()) {
      // δ windows keyed by all attributes: each instance is one tuple at one timestamp, counted
      // by a stateful step instead of grouped by a GroupByKey.
      return input.apply(
          atMostOne() ? "AggregateAtMostOnePerInstance" : "AggregatePerInstance",
          new TupleInstanceStep<>(
              tupleCoder(),
              selfMultiOutputFn(),
              outputCoder(),
              allowedLateness(),
              selfLateKeys(),
              countsLateness()));
    }
    PCollection<InputT> windowed =
        input.apply(
            "Window",
            // The trigger too: one the input brings (element counts, early firings) would fire an
            // instance more than once, where A fires at the watermark and then once per late batch.
            Window.<InputT>into(windows().windowFn())
                .triggering(DefaultTrigger.of())
                .withAllowedLateness(allowedLateness())
                .withTimestampCombiner(TimestampCombiner.END_OF_WINDOW)
                .discardingFiredPanes());
    String emit = atMostOne() ? "EmitAtMostOne" : "EmitOutputs";
    return windowed
        .apply("KeyBy", ParDo.of(new KeyByFn<>(keyFn())))
        .setCoder(KvCoder.of(keyCoder(), input.getCoder()))
        .apply("GroupByKeyAndWindow", GroupByKey.create())
        .apply(emit, ParDo.of(new EmitFn<KeyT, InputT, OutputT>(valuesOutputFn(), lateKeys())))
        .setCoder(outputCoder());
  }

  /** f_O over a group's values. */
  private GroupFunction<KeyT, InputT, OutputT> valuesOutputFn() {
    MultiWindowFunction<KeyT, InputT, OutputT> f = outputFn();
    return (window, key, values) -> {
      List<InputT> tuples = new ArrayList<>();
      values.forEach(tuples::add);
      return f.apply(window, key, tuples);
    };
  }

  /** f_O of a tuple-keyed Aggregate, whose keys are its tuples. */
  @SuppressWarnings("unchecked")
  private MultiWindowFunction<InputT, InputT, OutputT> selfMultiOutputFn() {
    return (MultiWindowFunction<InputT, InputT, OutputT>) outputFn();
  }

  /** The coder of a tuple-keyed Aggregate's keys, which are its tuples. */
  @SuppressWarnings("unchecked")
  private Coder<InputT> tupleCoder() {
    return (Coder<InputT>) keyCoder();
  }

  /** The late keys of a tuple-keyed Aggregate, whose keys are its tuples. */
  @SuppressWarnings("unchecked")
  private @Nullable SerializableFunction<InputT, Boolean> selfLateKeys() {
    return (SerializableFunction<InputT, Boolean>) (SerializableFunction<?, Boolean>) lateKeys();
  }

  /** f_O on a fired group's key and values; an empty group is never passed. */
  private interface GroupFunction<K, V, O> extends Serializable {
    Iterable<O> apply(IntervalWindow window, K key, Iterable<V> values);
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    builder
        .add(DisplayData.item("windowAdvance", windows().advance()).withLabel("WA"))
        .add(DisplayData.item("windowSize", windows().size()).withLabel("WS"))
        .add(DisplayData.item("allowedLateness", allowedLateness()).withLabel("L"))
        .add(DisplayData.item("variant", atMostOne() ? "A" : "A+"));
  }

  private static PaneInfo asLate(PaneInfo pane) {
    return PaneInfo.createPane(
        pane.isFirst(),
        pane.isLast(),
        PaneInfo.Timing.LATE,
        pane.getIndex(),
        pane.getNonSpeculativeIndex());
  }

  private static final class KeyByFn<InputT, KeyT> extends DoFn<InputT, KV<KeyT, InputT>> {
    private final SerializableFunction<InputT, KeyT> keyFn;

    KeyByFn(SerializableFunction<InputT, KeyT> keyFn) {
      this.keyFn = keyFn;
    }

    @ProcessElement
    public void process(@Element InputT tuple, OutputReceiver<KV<KeyT, InputT>> out) {
      out.output(KV.of(keyFn.apply(tuple), tuple));
    }
  }

  /**
   * Calls f_O on a fired pane's tuples; outputs take the pane's timestamp, the window's end − δ,
   * and the pane itself, unless the key was late upstream.
   */
  private static final class EmitFn<K, V, OutputT> extends DoFn<KV<K, Iterable<V>>, OutputT> {
    private final GroupFunction<K, V, OutputT> outputFn;
    private final @Nullable SerializableFunction<K, Boolean> lateKeys;

    EmitFn(
        GroupFunction<K, V, OutputT> outputFn,
        @Nullable SerializableFunction<K, Boolean> lateKeys) {
      this.outputFn = outputFn;
      this.lateKeys = lateKeys;
    }

    @ProcessElement
    public void process(
        @Element KV<K, Iterable<V>> group,
        IntervalWindow window,
        PaneInfo pane,
        OutputReceiver<OutputT> out) {
      // A window instance without tuples has nothing to aggregate. Flink can fire such a pane
      // when the watermark passes a window's end and its expiry at once (an empty duplicate of the
      // on-time pane); f_O is never called for it.
      if (!group.getValue().iterator().hasNext()) {
        return;
      }
      boolean relabel =
          lateKeys != null
              && pane.getTiming() != PaneInfo.Timing.LATE
              && lateKeys.apply(group.getKey());
      for (OutputT output : outputFn.apply(window, group.getKey(), group.getValue())) {
        if (relabel) {
          out.builder(output).setPaneInfo(asLate(pane)).output();
        } else {
          out.output(output);
        }
      }
    }
  }
}
