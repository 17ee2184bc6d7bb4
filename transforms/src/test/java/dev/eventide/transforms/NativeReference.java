package dev.eventide.transforms;

import dev.eventide.transforms.primitives.WindowSpec;
import org.apache.beam.sdk.coders.BooleanCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;

/**
 * The reference for the Aggregate-built operators when data is late: Beam's native transform,
 * followed by Beam's own lateness rule on its outputs (δ windows with allowed lateness L, a
 * GroupByKey by value, and each grouped element emitted again). That is the semantics the paper
 * proves: the native operator, plus output at the watermark and dropping beyond L.
 */
final class NativeReference<InputT, OutputT>
    extends PTransform<PCollection<InputT>, PCollection<OutputT>> {
  private final PTransform<PCollection<InputT>, PCollection<OutputT>> nativeTransform;
  private final Duration lateness;

  private NativeReference(
      PTransform<PCollection<InputT>, PCollection<OutputT>> nativeTransform, Duration lateness) {
    this.nativeTransform = nativeTransform;
    this.lateness = lateness;
  }

  /**
   * A native element-wise transform (typed {@code PCollection<? extends I>} in, like {@code
   * MapElements}) as a transform of exactly its input type, as {@link #of} and the differential
   * tests take it.
   */
  static <I, O> PTransform<PCollection<I>, PCollection<O>> exactly(
      PTransform<? super PCollection<I>, PCollection<O>> transform) {
    return new PTransform<>() {
      @Override
      public PCollection<O> expand(PCollection<I> input) {
        return input.apply(transform);
      }
    };
  }

  static <InputT, OutputT> NativeReference<InputT, OutputT> of(
      PTransform<PCollection<InputT>, PCollection<OutputT>> nativeTransform, Duration lateness) {
    return new NativeReference<>(nativeTransform, lateness);
  }

  @Override
  public PCollection<OutputT> expand(PCollection<InputT> input) {
    PCollection<OutputT> out = input.apply("Native", nativeTransform);
    return out.apply(
            "DeltaWindowsWithLateness",
            Window.<OutputT>into(FixedWindows.of(WindowSpec.DELTA))
                .withAllowedLateness(lateness)
                .withTimestampCombiner(TimestampCombiner.END_OF_WINDOW)
                .discardingFiredPanes())
        .apply("KeyBySelf", ParDo.of(new KeyBySelf<OutputT>()))
        // Boolean rather than Void values: Flink's bag state of Void values fails to read an empty
        // pane (the empty duplicate pane Flink may fire at the end of the input).
        .setCoder(KvCoder.of(out.getCoder(), BooleanCoder.of()))
        .apply(GroupByKey.create())
        .apply("Ungroup", ParDo.of(new Ungroup<OutputT>()))
        .setCoder(out.getCoder());
  }

  private static final class KeyBySelf<T> extends DoFn<T, KV<T, Boolean>> {
    @ProcessElement
    public void process(@Element T t, OutputReceiver<KV<T, Boolean>> out) {
      out.output(KV.of(t, true));
    }
  }

  private static final class Ungroup<T> extends DoFn<KV<T, Iterable<Boolean>>, T> {
    @ProcessElement
    public void process(@Element KV<T, Iterable<Boolean>> group, OutputReceiver<T> out) {
      for (Boolean ignored : group.getValue()) {
        out.output(group.getKey());
      }
    }
  }
}
