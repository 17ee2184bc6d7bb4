package dev.eventide.transforms;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.testing.differential.Seeds;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.testing.streams.EventTimeStream;
import dev.eventide.testing.streams.GatedReplay;
import dev.eventide.transforms.primitives.WindowSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestPipelineExtension;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.FlatMapElements;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.SlidingWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a later windowed aggregation sees after an Aggregate-built operator, against the native
 * transform followed by Beam's lateness rule, on the DirectRunner (the runner that honours
 * TestStream watermarks exactly): a count per element in tumbling or sliding windows with the
 * operator's allowed lateness (0 or more), discarding panes. The rule docs/transforms.md states,
 * asserted exactly: the same ON_TIME panes and the same LATE panes, where each late input comes in
 * a batch of its own (the random streams); for a batch of several late inputs, the panes the
 * reference fires when each distinct input tuple of the batch comes in a batch of its own ({@link
 * #lateInputsOfOneBatch}). X's loop is keyed by E's output, one per distinct input tuple and
 * timestamp, and the DirectRunner runs each key's work in a bundle of its own, each firing a pane
 * downstream; the reference passes a batch's outputs on in one bundle.
 */
@ExtendWith(TestPipelineExtension.class)
class DownstreamPanesTest {
  private static final Duration L = StatelessOperatorsTest.LATENESS;

  // Late panes seen downstream of the operators, over all seeds (the DirectRunner runs the
  // assertions in this JVM): the rule must have been exercised.
  static final AtomicLong LATE_PANES = new AtomicLong();

  @AfterAll
  static void latePanesFired() {
    assertTrue(LATE_PANES.get() > 0, "no late pane fired downstream in any case");
  }

  static LongStream seeds() {
    return Seeds.range(0, 6);
  }

  /** Per seed: Filter, Map, FlatMap and the join; even seeds tumbling, odd sliding downstream. */
  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void aLaterAggregationFiresTheSamePanes(long seed, TestPipeline p) {
    TestRunner.skipImmutabilityCheck(p); // checked by the smaller suites on the same DoFns
    compareOperators(seed, p, false);
    p.run();
  }

  /**
   * Late inputs that come in one batch, the rule docs/transforms.md states: after the operator, a
   * batch's late outputs fire the panes the reference fires when each distinct input tuple of the
   * batch comes in a batch of its own. Equal inputs share a pane downstream, as after the reference
   * (the smallest case: five copies of {@code 7@50} through a Filter, then a 10 ms count,
   * one late pane of 5); the outputs of distinct inputs come in panes of their own ({@code 1@50}
   * and {@code 5@50} through {@code x % 4}: two panes of 1 where the reference, given them
   * together, fires one of 2).
   */
  @Test
  void lateInputsOfOneBatch(TestPipeline p) {
    Duration lateness = Duration.millis(100);
    TimestampedValue<Integer> seven = at(7, 50);
    TestStream.Builder<Integer> start =
        TestStream.create(VarIntCoder.of()).advanceWatermarkTo(new Instant(100));
    TestStream<Integer> together =
        start
            .addElements(seven, seven, seven, seven, seven, at(1, 50), at(5, 50), at(6, 52))
            .addElements(at(6, 52))
            .advanceWatermarkToInfinity();
    TestStream<Integer> apart =
        start
            .addElements(seven, seven, seven, seven, seven)
            .addElements(at(1, 50))
            .addElements(at(5, 50))
            .addElements(at(6, 52))
            .addElements(at(6, 52))
            .advanceWatermarkToInfinity();
    Sides<Integer> batch = new Sides<>(p.apply("Together", together), null);
    Sides<Integer> perInput = new Sides<>(p.apply("Apart", apart), null);
    WindowFn<Object, ?> downstream = FixedWindows.of(Duration.millis(10));
    compareStatelessOperators("batch", perInput, batch, downstream, lateness);
    p.run();
  }

  private static TimestampedValue<Integer> at(int x, long millis) {
    return TimestampedValue.of(x, new Instant(millis));
  }

  /**
   * Adds the four comparisons of one seed to {@code p}. With {@code gated}, the streams are
   * replayed through a {@link GatedReplay} that waits, at each watermark advance, until the
   * watermark has come out of every compared side's downstream count (for runners whose {@code
   * TestStream} lets elements overtake watermarks).
   */
  static void compareOperators(long seed, TestPipeline p, boolean gated) {
    Duration lateness = seed % 4 < 2 ? L : Duration.ZERO;
    WindowFn<Object, ?> downstream =
        seed % 2 == 0
            ? FixedWindows.of(Duration.millis(5))
            : SlidingWindows.of(Duration.millis(10)).every(Duration.millis(5));
    Sides<Integer> input =
        Sides.of(p, "Stream " + seed, RandomStreams.stream(seed, L, true), gated);
    compareStatelessOperators(Long.toString(seed), input, input, downstream, lateness);
    WindowSpec w = JoinTest.WINDOWS.get((int) (seed % 2));
    Sides<Integer> joinInput =
        Sides.of(p, "Join stream " + seed, JoinTest.stream(seed, w, true), gated);
    Duration joinLateness = lateness.getMillis() > 0 ? JoinTest.L : Duration.ZERO;
    compare(
        "Join " + seed,
        joinInput,
        JoinTest.nativeJoin(w, joinLateness),
        JoinTest.aggregateJoin(w, joinLateness),
        downstream,
        joinLateness);
  }

  /**
   * Adds the Filter, Map and FlatMap comparisons, the reference reading {@code referenceInput}, the
   * operators {@code input}. Map and FlatMap give distinct inputs equal outputs.
   */
  private static void compareStatelessOperators(
      String name,
      Sides<Integer> referenceInput,
      Sides<Integer> input,
      WindowFn<Object, ?> downstream,
      Duration lateness) {
    compare(
        "Filter " + name,
        referenceInput,
        NativeReference.of(NativeReference.exactly(Filter.by((Integer x) -> x % 3 != 2)), lateness),
        input,
        AggregateFilter.by((Integer x) -> x % 3 != 2).withAllowedLateness(lateness),
        downstream,
        lateness);
    compare(
        "Map " + name,
        referenceInput,
        NativeReference.of(
            NativeReference.exactly(
                MapElements.into(TypeDescriptors.integers()).via((Integer x) -> x % 4)),
            lateness),
        input,
        AggregateMap.into(TypeDescriptors.integers())
            .via((Integer x) -> x % 4)
            .withAllowedLateness(lateness),
        downstream,
        lateness);
    compare(
        "FlatMap " + name,
        referenceInput,
        NativeReference.of(
            NativeReference.exactly(
                FlatMapElements.into(TypeDescriptors.integers()).via(DownstreamPanesTest::fan)),
            lateness),
        input,
        AggregateFlatMap.into(TypeDescriptors.integers())
            .via(DownstreamPanesTest::fan)
            .withAllowedLateness(lateness),
        downstream,
        lateness);
  }

  /** The input of the compared sides, and the gate that waits for them if it is replayed. */
  private static final class Sides<I> {
    final PCollection<I> input;
    final @Nullable GatedReplay<I> replay;

    private Sides(PCollection<I> input, @Nullable GatedReplay<I> replay) {
      this.input = input;
      this.replay = replay;
    }

    static <I> Sides<I> of(TestPipeline p, String name, EventTimeStream<I> s, boolean gated) {
      if (!gated) {
        return new Sides<>(p.apply(name, s.build()), null);
      }
      GatedReplay<I> replay = s.replay();
      return new Sides<>(p.apply(name, replay), replay);
    }

    PCollection<String> apply(String name, PTransform<PCollection<I>, PCollection<String>> side) {
      return input.apply(name, replay == null ? side : replay.probed(side));
    }
  }

  /** x copies of x % 3: fan-out 0 to 4 with equal outputs. */
  private static List<Integer> fan(Integer x) {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < x % 5; i++) {
      out.add(x % 3);
    }
    return out;
  }

  private static <I, O> void compare(
      String name,
      Sides<I> input,
      PTransform<PCollection<I>, PCollection<O>> reference,
      PTransform<PCollection<I>, PCollection<O>> candidate,
      WindowFn<Object, ?> downstream,
      Duration lateness) {
    compare(name, input, reference, input, candidate, downstream, lateness);
  }

  /** As above, the reference reading {@code referenceInput}, the candidate {@code input}. */
  private static <I, O> void compare(
      String name,
      Sides<I> referenceInput,
      PTransform<PCollection<I>, PCollection<O>> reference,
      Sides<I> input,
      PTransform<PCollection<I>, PCollection<O>> candidate,
      WindowFn<Object, ?> downstream,
      Duration lateness) {
    PCollection<String> panes =
        PCollectionList.of(
                referenceInput.apply(
                    name + " reference", counted("reference", reference, downstream, lateness)))
            .and(
                input.apply(
                    name + " aggregate", counted("aggregate", candidate, downstream, lateness)))
            .apply(name + " panes", Flatten.pCollections());
    PAssert.that(name + " downstream panes", panes)
        .satisfies(
            lines -> {
              check(name, lines, lateness);
              return null;
            });
  }

  /**
   * The operator, then the later aggregation, each of its outputs as {@code
   * side|window|element|timing|count}.
   */
  private static <I, O> PTransform<PCollection<I>, PCollection<String>> counted(
      String side,
      PTransform<PCollection<I>, PCollection<O>> operator,
      WindowFn<Object, ?> downstream,
      Duration lateness) {
    return new PTransform<>() {
      @Override
      public PCollection<String> expand(PCollection<I> input) {
        return input
            .apply("operator", operator)
            .apply("as text", MapElements.into(TypeDescriptors.strings()).via(String::valueOf))
            .apply(
                "downstream windows",
                Window.<String>into(downstream)
                    .withAllowedLateness(lateness)
                    .discardingFiredPanes())
            .apply("count", Count.perElement())
            .apply("observe", ParDo.of(new Observe(side)))
            .apply("global", Window.into(new GlobalWindows()));
      }
    };
  }

  private static final class Observe extends DoFn<KV<String, Long>, String> {
    private final String side;

    Observe(String side) {
      this.side = side;
    }

    @ProcessElement
    public void process(
        @Element KV<String, Long> count,
        BoundedWindow window,
        PaneInfo pane,
        OutputReceiver<String> out) {
      out.output(
          String.join(
              "|",
              side,
              window.toString(),
              count.getKey(),
              pane.getTiming().name(),
              Long.toString(count.getValue())));
    }
  }

  private static void check(String name, Iterable<String> lines, Duration lateness) {
    Map<String, Long> onTime = new TreeMap<>();
    Map<String, Long> lateTotal = new TreeMap<>();
    Map<String, Long> latePanes = new TreeMap<>();
    for (String line : lines) {
      String[] f = line.split("\\|", -1);
      String cell = f[1] + " " + f[2];
      long count = Long.parseLong(f[4]);
      if (f[3].equals("LATE")) {
        lateTotal.merge(f[0] + " " + cell, count, Long::sum);
        latePanes.merge(f[0] + " " + cell + " " + count, 1L, Long::sum);
      } else {
        onTime.merge(f[0] + " " + f[3] + " " + cell, count, Long::sum);
      }
    }
    assertEquals(side(onTime, "reference"), side(onTime, "aggregate"), name + ": on-time panes");
    assertEquals(
        side(lateTotal, "reference"), side(lateTotal, "aggregate"), name + ": late totals");
    assertEquals(side(latePanes, "reference"), side(latePanes, "aggregate"), name + ": late panes");
    LATE_PANES.addAndGet(side(lateTotal, "aggregate").size());
  }

  private static Map<String, Long> side(Map<String, Long> all, String side) {
    Map<String, Long> one = new TreeMap<>();
    all.forEach(
        (k, v) -> {
          if (k.startsWith(side + " ")) {
            one.put(k.substring(side.length() + 1), v);
          }
        });
    return one;
  }
}
