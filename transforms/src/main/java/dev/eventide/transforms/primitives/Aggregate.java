package dev.eventide.transforms.primitives;

import com.google.auto.value.AutoValue;
import dev.eventide.transforms.internal.Checks;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.beam.sdk.coders.CannotProvideCoderException;
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
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

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
 * Later tuples are dropped. The multi-output variant A+ ({@link Keyed#viaMultiOutput}) may emit any
 * number of outputs per firing; the paper keeps it for comparison.
 *
 * <pre>{@code
 * PCollection<KV<String, Long>> counts = events.apply(
 *     Aggregate.within(WindowSpec.tumbling(Duration.standardMinutes(1)))
 *         .keyedBy(Event::user)
 *         .withKeyCoder(StringUtf8Coder.of())
 *         .via((window, user, tuples) -> Optional.of(KV.of(user, (long) tuples.size())))
 *         .withOutputCoder(KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of()))
 *         .withAllowedLateness(Duration.standardMinutes(10)));
 * }</pre>
 *
 * <p>The coders of the keys and of the outputs are taken from the pipeline's {@code CoderRegistry}
 * where Beam can tell their types: when f_K or f_O is a class (a named or anonymous class
 * implementing the interface) rather than a lambda, whose types erasure removes. Otherwise they are
 * given by name, {@link Keyed#withKeyCoder} and {@link #withOutputCoder}; a missing one stops the
 * pipeline's construction with a message naming its input and the method to call.
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

  // Built by its factory methods only (AutoValue's subclass lives in this package).
  Aggregate() {}

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

  // Null until given or inferred at expansion (see withCoders).
  abstract @Nullable Coder<KeyT> keyCoder();

  abstract MultiWindowFunction<KeyT, InputT, OutputT> outputFn();

  abstract @Nullable Coder<OutputT> outputCoder();

  abstract Duration allowedLateness();

  abstract boolean atMostOne();

  // Over δ windows keyed by all attributes (f_K is the identity): see expandPerInstance.
  abstract boolean keyedByTuple();

  // Counts the late and dropped tuples of its input: set on an operator's first step.
  abstract boolean countsLateness();

  // The outputs' type where f_O's class tells it, for the registry's coder.
  abstract @Nullable TypeDescriptor<OutputT> outputType();

  abstract Builder<InputT, KeyT, OutputT> toBuilder();

  @AutoValue.Builder
  abstract static class Builder<InputT, KeyT, OutputT> {
    abstract Builder<InputT, KeyT, OutputT> setWindows(WindowSpec windows);

    abstract Builder<InputT, KeyT, OutputT> setKeyFn(SerializableFunction<InputT, KeyT> keyFn);

    abstract Builder<InputT, KeyT, OutputT> setKeyCoder(@Nullable Coder<KeyT> keyCoder);

    abstract Builder<InputT, KeyT, OutputT> setOutputFn(
        MultiWindowFunction<KeyT, InputT, OutputT> outputFn);

    abstract Builder<InputT, KeyT, OutputT> setOutputCoder(@Nullable Coder<OutputT> outputCoder);

    abstract Builder<InputT, KeyT, OutputT> setAllowedLateness(Duration allowedLateness);

    abstract Builder<InputT, KeyT, OutputT> setAtMostOne(boolean atMostOne);

    abstract Builder<InputT, KeyT, OutputT> setKeyedByTuple(boolean keyedByTuple);

    abstract Builder<InputT, KeyT, OutputT> setCountsLateness(boolean countsLateness);

    abstract Builder<InputT, KeyT, OutputT> setOutputType(
        @Nullable TypeDescriptor<OutputT> outputType);

    abstract Aggregate<InputT, KeyT, OutputT> build();
  }

  /** Starts an Aggregate over the window instances of {@code windows} (WA, WS). */
  public static Windowed within(WindowSpec windows) {
    return new Windowed(Objects.requireNonNull(windows, "windows"));
  }

  /** An Aggregate with its windows. */
  public static final class Windowed {
    private final WindowSpec windows;

    private Windowed(WindowSpec windows) {
      this.windows = windows;
    }

    /**
     * Groups tuples by f_K. The tuples' type is inferred from {@code keyFn}: a method reference of
     * a non-generic type ({@code Event::user}) or a lambda with a typed parameter.
     */
    public <InputT, KeyT> Keyed<InputT, KeyT> keyedBy(SerializableFunction<InputT, KeyT> keyFn) {
      return new Keyed<>(windows, Objects.requireNonNull(keyFn, "f_K"), null);
    }
  }

  /** An Aggregate with its windows and keys. */
  public static final class Keyed<InputT, KeyT> {
    private final WindowSpec windows;
    private final SerializableFunction<InputT, KeyT> keyFn;
    private final @Nullable Coder<KeyT> keyCoder;

    private Keyed(
        WindowSpec windows, SerializableFunction<InputT, KeyT> keyFn, @Nullable Coder<KeyT> coder) {
      this.windows = windows;
      this.keyFn = keyFn;
      this.keyCoder = coder;
    }

    /**
     * Encodes the keys with {@code keyCoder}, which must be deterministic: keys are compared by
     * their encoding.
     *
     * @throws IllegalArgumentException if it is not
     */
    public Keyed<InputT, KeyT> withKeyCoder(Coder<KeyT> keyCoder) {
      Checks.requireDeterministic(Objects.requireNonNull(keyCoder, "keyCoder"), "f_K's key coder");
      return new Keyed<>(windows, keyFn, keyCoder);
    }

    /** The Aggregate A, whose f_O emits at most one output per window instance and key. */
    public <OutputT> Aggregate<InputT, KeyT, OutputT> via(
        WindowFunction<KeyT, InputT, OutputT> outputFn) {
      Objects.requireNonNull(outputFn, "f_O");
      return Aggregate.<InputT, KeyT, OutputT>builder(windows, keyFn, keyCoder, null)
          .setOutputFn(atMostOne(outputFn))
          .setAtMostOne(true)
          .setOutputType(outputType(outputFn))
          .build();
    }

    /**
     * The relaxed Aggregate A+, whose f_O may emit any number of outputs per window instance and
     * key, all timestamped at the end of the instance. The paper keeps it for comparison.
     */
    public <OutputT> Aggregate<InputT, KeyT, OutputT> viaMultiOutput(
        MultiWindowFunction<KeyT, InputT, OutputT> outputFn) {
      Objects.requireNonNull(outputFn, "f_O");
      return Aggregate.<InputT, KeyT, OutputT>builder(windows, keyFn, keyCoder, null)
          .setOutputFn(outputFn)
          .setAtMostOne(false)
          .setOutputType(outputType(outputFn))
          .build();
    }
  }

  /** The type of f_O's outputs where its class tells it; null for a lambda. */
  private static <K, I, O> @Nullable TypeDescriptor<O> outputType(WindowFunction<K, I, O> fn) {
    return knownType(
        () ->
            TypeDescriptors.extractFromTypeParameters(
                fn,
                WindowFunction.class,
                new TypeDescriptors.TypeVariableExtractor<WindowFunction<K, I, O>, O>() {}));
  }

  /** The type of f_O's outputs where its class tells it; null for a lambda. */
  private static <K, I, O> @Nullable TypeDescriptor<O> outputType(MultiWindowFunction<K, I, O> fn) {
    return knownType(
        () ->
            TypeDescriptors.extractFromTypeParameters(
                fn,
                MultiWindowFunction.class,
                new TypeDescriptors.TypeVariableExtractor<MultiWindowFunction<K, I, O>, O>() {}));
  }

  /** The type {@code extract} gives, or null where erasure left it unknown (a lambda). */
  private static <T> @Nullable TypeDescriptor<T> knownType(Supplier<TypeDescriptor<T>> extract) {
    try {
      TypeDescriptor<T> type = extract.get();
      return type == null || type.hasUnresolvedParameters() ? null : type;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static <KeyT, InputT, OutputT> MultiWindowFunction<KeyT, InputT, OutputT> atMostOne(
      WindowFunction<KeyT, InputT, OutputT> outputFn) {
    return (window, key, tuples) ->
        outputFn.apply(window, key, tuples).map(List::of).orElseGet(List::of);
  }

  /**
   * Returns the same Aggregate encoding its outputs with {@code outputCoder}, instead of the coder
   * the pipeline's registry gives for their type.
   */
  public Aggregate<InputT, KeyT, OutputT> withOutputCoder(Coder<OutputT> outputCoder) {
    return toBuilder().setOutputCoder(Objects.requireNonNull(outputCoder, "outputCoder")).build();
  }

  /**
   * Returns an Aggregate over δ windows keyed by all attributes: each instance holds only identical
   * tuples with one timestamp, and its output keeps that timestamp (the paper's Lemma 2). Tuples
   * are compared by their encoding under the input's coder, which must be deterministic.
   *
   * <pre>{@code
   * Aggregate<Long, Long, Long> halve =
   *     Aggregate.byAllAttributes(
   *             (IntervalWindow window, Long x, List<Long> copies) ->
   *                 x % 2 == 0 ? Optional.of(x / 2) : Optional.<Long>empty())
   *         .withOutputCoder(VarLongCoder.of());
   * PCollection<Long> halvings = numbers.apply(Loop.of(halve)); // 12 gives 6 and 3
   * }</pre>
   */
  public static <T, OutputT> Aggregate<T, T, OutputT> byAllAttributes(
      WindowFunction<T, T, OutputT> outputFn) {
    Objects.requireNonNull(outputFn, "f_O");
    return Aggregate.<T, T, OutputT>builder(WindowSpec.delta(), t -> t, null, null)
        .setOutputFn(atMostOne(outputFn))
        .setAtMostOne(true)
        .setKeyedByTuple(true)
        .setOutputType(outputType(outputFn))
        .build();
  }

  /** As {@link #byAllAttributes(WindowFunction)}, with its coders, for the building blocks. */
  static <T, OutputT> Aggregate<T, T, OutputT> byAllAttributes(
      Coder<T> tupleCoder, WindowFunction<T, T, OutputT> outputFn, Coder<OutputT> outputCoder) {
    Checks.requireDeterministic(tupleCoder, "the tuple coder");
    return Aggregate.<T, T, OutputT>builder(WindowSpec.delta(), t -> t, tupleCoder, outputCoder)
        .setOutputFn(atMostOne(outputFn))
        .setAtMostOne(true)
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
    Checks.requireDeterministic(tupleCoder, "the tuple coder");
    return Aggregate.<T, T, OutputT>builder(WindowSpec.delta(), t -> t, tupleCoder, outputCoder)
        .setOutputFn(outputFn)
        .setAtMostOne(true)
        .setKeyedByTuple(true)
        .build();
  }

  private static <InputT, KeyT, OutputT> Builder<InputT, KeyT, OutputT> builder(
      WindowSpec windows,
      SerializableFunction<InputT, KeyT> keyFn,
      @Nullable Coder<KeyT> keyCoder,
      @Nullable Coder<OutputT> outputCoder) {
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
   * Returns the same Aggregate counting the input tuples it processes late ({@link
   * TransformMetrics#LATE_TUPLES}) and those it drops as late beyond L ({@link
   * TransformMetrics#DROPPED_TUPLES}): for the first step of an operator, which sees the operator's
   * input. Counted steps sum, so count each input once.
   *
   * <pre>{@code
   * Aggregate<Long, Long, Long> firstStep =
   *     Aggregate.byAllAttributes(
   *             (IntervalWindow window, Long x, List<Long> copies) -> Optional.of(x))
   *         .withOutputCoder(VarLongCoder.of())
   *         .withAllowedLateness(Duration.standardMinutes(5))
   *         .countingLateness();
   * }</pre>
   *
   * @throws IllegalStateException unless this Aggregate is keyed by all attributes ({@link
   *     #byAllAttributes}): a windowed {@code GroupByKey} counts the tuples it drops in Beam's own
   *     {@code droppedDueToLateness}
   */
  public Aggregate<InputT, KeyT, OutputT> countingLateness() {
    if (!keyedByTuple()) {
      throw new IllegalStateException(
          "countingLateness() applies to an Aggregate keyed by all attributes"
              + " (Aggregate.byAllAttributes); this one groups by f_K in "
              + windows()
              + ", whose GroupByKey counts the tuples it drops in Beam's droppedDueToLateness");
    }
    return toBuilder().setCountsLateness(true).build();
  }

  /**
   * Returns the same Aggregate with allowed lateness L.
   *
   * @throws IllegalArgumentException if {@code allowedLateness} is negative
   */
  public Aggregate<InputT, KeyT, OutputT> withAllowedLateness(Duration allowedLateness) {
    return toBuilder().setAllowedLateness(Checks.checkLateness(allowedLateness)).build();
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

  @Override
  public PCollection<OutputT> expand(PCollection<InputT> input) {
    if (keyCoder() == null || outputCoder() == null) {
      return withCoders(input).expand(input);
    }
    if (keyedByTuple()) {
      return expandPerInstance(input);
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
        .apply(emit, ParDo.of(new EmitFn<KeyT, InputT, OutputT>(valuesOutputFn())))
        .setCoder(outputCoder());
  }

  /**
   * This Aggregate with the coders it was not given: the input's for a tuple-keyed one's keys, else
   * the pipeline registry's for the types f_K's and f_O's classes tell.
   *
   * @throws IllegalStateException naming the input and what to call, where neither serves
   */
  @SuppressWarnings("unchecked")
  private Aggregate<InputT, KeyT, OutputT> withCoders(PCollection<InputT> input) {
    Coder<KeyT> keys = keyCoder();
    if (keys == null) {
      keys =
          keyedByTuple()
              ? (Coder<KeyT>) input.getCoder()
              : registryCoder(input, keyType(), "keys", "Aggregate.Keyed#withKeyCoder");
      Checks.requireDeterministic(keys, "f_K's key coder");
    }
    Coder<OutputT> outputs = outputCoder();
    if (outputs == null) {
      outputs = registryCoder(input, outputType(), "outputs", "Aggregate#withOutputCoder");
    }
    return toBuilder().setKeyCoder(keys).setOutputCoder(outputs).build();
  }

  /** The type of f_K's keys where its class tells it; null for a lambda. */
  private @Nullable TypeDescriptor<KeyT> keyType() {
    return knownType(() -> TypeDescriptors.outputOf(keyFn()));
  }

  private static <T> Coder<T> registryCoder(
      PCollection<?> input, @Nullable TypeDescriptor<T> type, String what, String method) {
    // (Beam does not tell a transform the name it is applied under; its input's name says where.)
    String step = "The Aggregate applied to " + input.getName();
    if (type == null) {
      throw new IllegalStateException(
          step
              + " cannot tell the type of its "
              + what
              + " (a lambda's types are erased), so Beam cannot choose their coder: give it with "
              + method);
    }
    try {
      return input.getPipeline().getCoderRegistry().getCoder(type);
    } catch (CannotProvideCoderException e) {
      throw new IllegalStateException(
          step
              + " has no coder for its "
              + what
              + " of type "
              + type
              + " in the pipeline's CoderRegistry: give it with "
              + method,
          e);
    }
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
   * and the pane itself.
   */
  private static final class EmitFn<K, V, OutputT> extends DoFn<KV<K, Iterable<V>>, OutputT> {
    private final GroupFunction<K, V, OutputT> outputFn;

    EmitFn(GroupFunction<K, V, OutputT> outputFn) {
      this.outputFn = outputFn;
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
      for (OutputT output : outputFn.apply(window, group.getKey(), group.getValue())) {
        out.output(output);
      }
    }
  }

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
   * builds, whose outputs stand for as many copies as they met, the multiset of results is the
   * same). A later copy is dropped, as Beam drops a tuple whose window expired (both counted in
   * {@link TransformMetrics} when the Aggregate is an operator's first step). Only the on-time
   * count is state, cleared when it fires, so unlike a stateful step in δ windows nothing holds the
   * watermark back for L. Outputs are in δ windows with allowed lateness L, as the {@code
   * GroupByKey}'s would be.
   */
  private PCollection<OutputT> expandPerInstance(PCollection<InputT> input) {
    return input
        .apply("GlobalWindow", Loop.<InputT>intoGlobalWindow())
        .apply(
            "KeyByAllAttributesAndTimestamp", ParDo.of(new Loop.KeyByTupleAndTimestampFn<InputT>()))
        .setCoder(KvCoder.of(KvCoder.of(tupleCoder(), InstantCoder.of()), VoidCoder.of()))
        .apply(
            atMostOne() ? "AggregateAtMostOnePerInstance" : "AggregatePerInstance",
            ParDo.of(new InstanceFn<>(selfMultiOutputFn(), allowedLateness(), countsLateness())))
        .setCoder(outputCoder())
        .apply("DeltaWindows", Loop.<OutputT>intoDeltaWindows(allowedLateness()));
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

    private final MultiWindowFunction<T, T, OutputT> outputFn;
    private final Duration allowedLateness;
    private final boolean countsLateness;
    private final Counter late = TransformMetrics.lateTuples();
    private final Counter dropped = TransformMetrics.droppedTuples();
    private final Counter keys = TransformMetrics.keysHoldingState();

    InstanceFn(
        MultiWindowFunction<T, T, OutputT> outputFn,
        Duration allowedLateness,
        boolean countsLateness) {
      this.outputFn = outputFn;
      this.allowedLateness = allowedLateness;
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
          keys.inc();
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
      keys.dec();
      emit(key.getKey(), key.getValue(), count, ON_TIME, out);
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
