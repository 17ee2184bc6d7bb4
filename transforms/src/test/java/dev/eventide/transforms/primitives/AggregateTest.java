package dev.eventide.transforms.primitives;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.hasItem;

import dev.eventide.testing.differential.Differential;
import dev.eventide.testing.runners.OnEachRunner;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.testing.streams.EventTimeStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestPipelineExtension;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The Aggregate against Beam's native windowed Combine.perKey. */
class AggregateTest {
  private static final Duration L = Duration.millis(40);

  /** Sum per key (x % 3) and window, the Aggregate way. */
  private static Aggregate<Integer, Integer, KV<Integer, Integer>> aggregateSum(
      WindowSpec w, Duration lateness) {
    return Aggregate.within(w)
        .keyedBy((Integer x) -> x % 3)
        .withKeyCoder(VarIntCoder.of())
        .via(
            (window, key, tuples) ->
                Optional.of(KV.of(key, tuples.stream().mapToInt(Integer::intValue).sum())))
        .withOutputCoder(KvCoder.of(VarIntCoder.of(), VarIntCoder.of()))
        .withAllowedLateness(lateness);
  }

  /** The same with Beam's own windowing and Combine.perKey. */
  private static PTransform<PCollection<Integer>, PCollection<KV<Integer, Integer>>> nativeSum(
      WindowSpec w, Duration lateness) {
    return new PTransform<>() {
      @Override
      public PCollection<KV<Integer, Integer>> expand(PCollection<Integer> in) {
        return in.apply(
                Window.<Integer>into(w.windowFn())
                    .withAllowedLateness(lateness)
                    .withTimestampCombiner(TimestampCombiner.END_OF_WINDOW)
                    .discardingFiredPanes())
            .apply(WithKeys.of((Integer x) -> x % 3).withKeyType(TypeDescriptors.integers()))
            .apply(Combine.perKey(Sum.ofIntegers()));
      }
    };
  }

  private static EventTimeStream<Integer> randomStream(long seed, WindowSpec w, boolean late) {
    Random random = new Random(seed);
    EventTimeStream<Integer> s =
        EventTimeStream.of(VarIntCoder.of()).withWindowing(w.windowFn(), L);
    long watermark = 0;
    for (int step = 0; step < 12; step++) {
      for (int i = random.nextInt(8); i > 0; i--) {
        s.onTime(random.nextInt(50), new Instant(watermark + random.nextInt(30)));
      }
      watermark += 5 + random.nextInt(20);
      s.advanceWatermarkTo(new Instant(watermark));
      if (late && random.nextBoolean()) {
        long t = Math.max(0, watermark - 1 - random.nextInt(80));
        Instant ts = new Instant(t);
        // Late for a window whose end passed; within or beyond L depending on the draw.
        boolean expired = true;
        boolean passed = false;
        for (IntervalWindow window : windowsOf(w, ts)) {
          expired &= window.maxTimestamp().plus(L).isBefore(new Instant(watermark));
          passed |= new Instant(watermark).isAfter(window.maxTimestamp());
        }
        if (expired) {
          s.lateBeyondLateness(random.nextInt(50), ts);
        } else if (passed) {
          s.lateWithinLateness(random.nextInt(50), ts);
        }
      }
    }
    return s;
  }

  private static List<IntervalWindow> windowsOf(WindowSpec w, Instant t) {
    List<IntervalWindow> out = new ArrayList<>();
    long size = w.size().getMillis();
    long advance = w.advance().getMillis();
    long last = t.getMillis() - Math.floorMod(t.getMillis(), advance);
    for (long start = last; start > t.getMillis() - size; start -= advance) {
      out.add(new IntervalWindow(new Instant(start), new Instant(start + size)));
    }
    return out;
  }

  private static final List<WindowSpec> WINDOWS =
      List.of(
          WindowSpec.tumbling(Duration.millis(20)),
          WindowSpec.sliding(Duration.millis(30), Duration.millis(10)));

  /**
   * 20 random streams, four to a pipeline: the DirectRunner's work per bundle grows with the size
   * of the pipeline's graph, so a few small pipelines take a fraction of the time of one large one.
   */
  @ParameterizedTest(name = "seeds {0} to {0} + 3")
  @ValueSource(ints = {0, 4, 8, 12, 16})
  @ExtendWith(TestPipelineExtension.class)
  void equalsNativeCombineWithLateDataOnEveryField(int first, TestPipeline p) {
    for (int seed = first; seed < first + 4; seed++) {
      WindowSpec w = WINDOWS.get(seed % 2);
      PCollection<Integer> in = p.apply("Stream " + seed, randomStream(seed, w, true).build());
      Differential.of(
              "native sum " + seed, nativeSum(w, L), "aggregate sum " + seed, aggregateSum(w, L))
          .assertSameOutput(in);
    }
    p.run();
  }

  /**
   * Without lateness: with L > 0, Flink's native Combine emits an extra empty pane (sum 0) when the
   * watermark passes a window's end and expiry at once, which the Aggregate does not.
   */
  @OnEachRunner
  void equalsNativeCombineOnTime(TestPipeline p) {
    for (int seed = 100; seed < 104; seed++) {
      WindowSpec w = WINDOWS.get(seed % 2);
      PCollection<Integer> in = p.apply("Stream " + seed, randomStream(seed, w, false).build());
      Differential.of(
              "native sum " + seed,
              nativeSum(w, Duration.ZERO),
              "aggregate sum " + seed,
              aggregateSum(w, Duration.ZERO))
          .assertSameOutput(in);
    }
    p.run();
  }

  @OnEachRunner(TestRunner.DIRECT)
  void multiOutputEmitsEveryOutputAtTheEndOfTheWindow(TestPipeline p) {
    PCollection<Integer> out =
        p.apply(
                EventTimeStream.of(VarIntCoder.of())
                    .onTime(1, new Instant(3))
                    .onTime(2, new Instant(7))
                    .onTime(5, new Instant(12))
                    .build())
            .apply(
                Aggregate.within(WindowSpec.tumbling(Duration.millis(10)))
                    .keyedBy((Integer x) -> 0)
                    .withKeyCoder(VarIntCoder.of())
                    .viaMultiOutput((window, key, tuples) -> tuples)
                    .withOutputCoder(VarIntCoder.of()));
    PAssert.that(out)
        .inOnTimePane(new IntervalWindow(new Instant(0), new Instant(10)))
        .containsInAnyOrder(1, 2);
    PAssert.that(out)
        .inOnTimePane(new IntervalWindow(new Instant(10), new Instant(20)))
        .containsInAnyOrder(5);
    p.run();
  }

  @Test
  void displayDataNamesThePapersParameters() {
    DisplayData data = DisplayData.from(aggregateSum(WINDOWS.get(1), L));
    List<String> items =
        data.items().stream()
            .map(item -> item.getKey() + "/" + item.getLabel() + "=" + item.getValue())
            .collect(java.util.stream.Collectors.toList());
    assertThat(items, hasItem("windowAdvance/WA=10"));
    assertThat(items, hasItem("windowSize/WS=30"));
    assertThat(items, hasItem("allowedLateness/L=40"));
    assertThat(items, hasItem("variant/null=A"));
  }
}
