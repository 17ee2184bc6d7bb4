package dev.eventide.transforms;

import dev.eventide.testing.differential.Differential;
import dev.eventide.testing.runners.OnEachRunner;
import dev.eventide.transforms.primitives.Aggregate;
import dev.eventide.transforms.primitives.Embed;
import dev.eventide.transforms.primitives.Unwrap;
import dev.eventide.transforms.primitives.WindowSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.FlatMapElements;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.windowing.AfterPane;
import org.apache.beam.sdk.transforms.windowing.AfterWatermark;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.Repeatedly;
import org.apache.beam.sdk.transforms.windowing.Trigger;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Inputs the Aggregate-built operators must take as Beam's native transforms do: null values,
 * triggers the input brings, and an allowed lateness that reaches the end of time. The native
 * transform (with Beam's lateness rule where the operator has one) is the reference, on both
 * runners.
 */
class OperatorInputsTest {
  private static final Coder<String> NULLABLE = NullableCoder.of(StringUtf8Coder.of());

  /** "Never drop": what users write for a lateness without end. */
  private static final Duration FOREVER =
      Duration.millis(BoundedWindow.TIMESTAMP_MAX_VALUE.getMillis());

  private static final SerializableFunction<String, String> MAP =
      s -> s == null ? "was null" : s.length() % 2 == 0 ? null : s.toUpperCase();
  private static final SerializableFunction<String, Boolean> KEEP =
      s -> s == null || s.length() > 1;
  private static final SerializableFunction<String, Iterable<String>> FLAT_MAP =
      s -> s == null ? Arrays.asList(null, null) : Arrays.asList(s, null);

  /** Strings and nulls, some equal, at a few timestamps. */
  private static PCollection<String> withNulls(TestPipeline p) {
    List<TimestampedValue<String>> values = new ArrayList<>();
    String[] items = {"a", null, "bb", "ccc", null, "bb", "dddd", "a"};
    for (int i = 0; i < items.length; i++) {
      values.add(TimestampedValue.of(items[i], new Instant(i % 3)));
    }
    return p.apply("With nulls", Create.timestamped(values).withCoder(NULLABLE));
  }

  /** The native transform, its output in the nullable coder. */
  private static PTransform<PCollection<String>, PCollection<String>> nullable(
      PTransform<? super PCollection<String>, PCollection<String>> transform) {
    return new PTransform<>() {
      @Override
      public PCollection<String> expand(PCollection<String> input) {
        return input.apply(transform).setCoder(NULLABLE);
      }
    };
  }

  /** Same values at the same timestamps, native (nulls in its output coder) vs Aggregate-built. */
  private static void sameValues(
      String name,
      PTransform<? super PCollection<String>, PCollection<String>> nativeTransform,
      PTransform<PCollection<String>, PCollection<String>> aggregate,
      PCollection<String> input) {
    Differential.of("native " + name, nullable(nativeTransform), "aggregate " + name, aggregate)
        .ignoring(Differential.Field.WINDOW, Differential.Field.PANE_TIMING)
        .assertSameOutput(input);
  }

  @OnEachRunner
  void nullsPassThroughAsInTheNativeTransforms(TestPipeline p) {
    PCollection<String> input = withNulls(p);
    sameValues(
        "Map",
        MapElements.into(TypeDescriptors.strings()).via(MAP),
        AggregateMap.into(TypeDescriptors.strings()).via(MAP).withOutputCoder(NULLABLE),
        input);
    sameValues("Filter", Filter.by(KEEP), AggregateFilter.by(KEEP), input);
    sameValues(
        "FlatMap",
        FlatMapElements.into(TypeDescriptors.strings()).via(FLAT_MAP),
        AggregateFlatMap.into(TypeDescriptors.strings()).via(FLAT_MAP).withOutputCoder(NULLABLE),
        input);
    sameValues(
        "unrolled FlatMap",
        FlatMapElements.into(TypeDescriptors.strings()).via(FLAT_MAP),
        new PTransform<PCollection<String>, PCollection<String>>() {
          @Override
          public PCollection<String> expand(PCollection<String> in) {
            return in.apply(Embed.flatMap(FLAT_MAP, NULLABLE)).apply(Unwrap.<String>unrolled(4));
          }
        },
        input);
    p.run().waitUntilFinish();
  }

  /**
   * Upstream triggers that fire a window more than once (after each element, early after each
   * element) do not reach the Aggregate: it fires each instance once, on time, with all its tuples.
   */
  @OnEachRunner
  void anInputTriggerDoesNotMakeAnAggregateFireTwice(TestPipeline p) {
    Trigger[] triggers = {
      Repeatedly.forever(AfterPane.elementCountAtLeast(1)),
      AfterWatermark.pastEndOfWindow().withEarlyFirings(AfterPane.elementCountAtLeast(1))
    };
    for (int i = 0; i < triggers.length; i++) {
      TestStream<Integer> stream =
          TestStream.create(VarIntCoder.of())
              .addElements(TimestampedValue.of(1, new Instant(1)))
              .addElements(TimestampedValue.of(2, new Instant(2)))
              .addElements(TimestampedValue.of(3, new Instant(3)))
              .addElements(TimestampedValue.of(4, new Instant(12)))
              .advanceWatermarkToInfinity();
      PCollection<KV<String, Long>> counts =
          p.apply("Stream " + i, stream)
              .apply(
                  "Upstream trigger " + i,
                  Window.<Integer>into(FixedWindows.of(Duration.millis(10)))
                      .triggering(triggers[i])
                      .withAllowedLateness(Duration.ZERO)
                      .discardingFiredPanes())
              .apply(
                  "Count " + i,
                  Aggregate.within(WindowSpec.tumbling(Duration.millis(10)))
                      .keyedBy((Integer x) -> "all")
                      .withKeyCoder(StringUtf8Coder.of())
                      .via((window, key, tuples) -> Optional.of(KV.of(key, (long) tuples.size())))
                      .withOutputCoder(KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of())));
      PAssert.that(counts.apply("Panes " + i, ParDo.of(new PaneFn())))
          .containsInAnyOrder("3 ON_TIME", "1 ON_TIME");
    }
    p.run().waitUntilFinish();
  }

  /**
   * A lateness that reaches the end of time, where Beam clamps a window's expiry: the operators and
   * the join agree with the native transforms and Beam's lateness rule instead of failing on a
   * timer after the end of time.
   */
  @OnEachRunner
  void aLatenessReachingTheEndOfTimeNeverDrops(TestPipeline p) {
    PCollection<Integer> input =
        p.apply(
            "Ints",
            Create.timestamped(
                    TimestampedValue.of(1, new Instant(5)),
                    TimestampedValue.of(2, new Instant(5)),
                    TimestampedValue.of(7, new Instant(40)))
                .withCoder(VarIntCoder.of()));
    SerializableFunction<Integer, Boolean> odd = x -> x % 2 == 1;
    Differential.of(
            "native Filter forever",
            NativeReference.of(NativeReference.exactly(Filter.by(odd)), FOREVER),
            "aggregate Filter forever",
            AggregateFilter.by(odd).withAllowedLateness(FOREVER))
        .assertSameOutput(input);
    Differential.of(
            "native Map forever",
            NativeReference.of(
                NativeReference.exactly(
                    MapElements.into(TypeDescriptors.integers()).via((Integer x) -> x * 3)),
                FOREVER),
            "aggregate Map forever",
            AggregateMap.into(TypeDescriptors.integers())
                .via((Integer x) -> x * 3)
                .withAllowedLateness(FOREVER))
        .assertSameOutput(input);
    PCollection<KV<String, Integer>> left =
        p.apply(
            "Left",
            Create.timestamped(
                    TimestampedValue.of(KV.of("k", 1), new Instant(3)),
                    TimestampedValue.of(KV.of("j", 2), new Instant(4)))
                .withCoder(KvCoder.of(StringUtf8Coder.of(), VarIntCoder.of())));
    PCollection<KV<String, String>> right =
        p.apply(
            "Right",
            Create.timestamped(TimestampedValue.of(KV.of("k", "x"), new Instant(6)))
                .withCoder(KvCoder.of(StringUtf8Coder.of(), StringUtf8Coder.of())));
    PCollection<String> joined =
        left.apply(
                "Join forever",
                AggregateJoin.with(right)
                    .within(WindowSpec.tumbling(Duration.millis(10)))
                    .keyedBy(
                        (KV<String, Integer> l) -> l.getKey(), KV::getKey, StringUtf8Coder.of())
                    .withAllowedLateness(FOREVER)
                    .where((l, r) -> true))
            .apply(
                "Show",
                MapElements.into(TypeDescriptors.strings())
                    .via(kv -> kv.getKey() + " " + kv.getValue()));
    PAssert.that(joined).containsInAnyOrder("KV{k, 1} KV{k, x}");
    p.run().waitUntilFinish();
  }

  private static final class PaneFn extends DoFn<KV<String, Long>, String> {
    @ProcessElement
    public void process(
        @Element KV<String, Long> count, PaneInfo pane, OutputReceiver<String> out) {
      out.output(count.getValue() + " " + pane.getTiming());
    }
  }
}
