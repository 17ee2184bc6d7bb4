package dev.eventide.transforms;

import dev.eventide.testing.differential.Differential;
import dev.eventide.testing.runners.OnEachRunner;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.testing.streams.EventTimeStream;
import dev.eventide.transforms.primitives.Unwrap;
import dev.eventide.transforms.primitives.WindowSpec;
import java.util.List;
import java.util.Random;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestPipelineExtension;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.transforms.join.CoGbkResult;
import org.apache.beam.sdk.transforms.join.CoGroupByKey;
import org.apache.beam.sdk.transforms.join.KeyedPCollectionTuple;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Aggregate-built join against Beam's windowed join: the same windows, CoGroupByKey and the
 * predicate. One random stream carries both sides (even values left, odd values right), so both
 * sides share one watermark and late data is late for both joins alike.
 */
class JoinTest {
  static final Duration L = Duration.millis(25);
  static final List<WindowSpec> WINDOWS =
      List.of(
          WindowSpec.tumbling(Duration.millis(20)),
          WindowSpec.sliding(Duration.millis(30), Duration.millis(10)));

  private static int key(int x) {
    return (x / 2) % 3;
  }

  private static boolean matches(int l, int r) {
    return (l + r) % 5 != 0;
  }

  static PTransform<PCollection<Integer>, PCollection<KV<Integer, Integer>>> aggregateJoin(
      WindowSpec w, Duration lateness) {
    return new PTransform<>() {
      @Override
      public PCollection<KV<Integer, Integer>> expand(PCollection<Integer> in) {
        PCollection<Integer> left = in.apply("Left", Filter.by((Integer x) -> x % 2 == 0));
        PCollection<Integer> right = in.apply("Right", Filter.by((Integer x) -> x % 2 == 1));
        return left.apply(
            "Join",
            AggregateJoin.with(right)
                .within(w)
                .keyedBy(JoinTest::key, JoinTest::key, VarIntCoder.of())
                .withAllowedLateness(lateness)
                .where(JoinTest::matches));
      }
    };
  }

  /** The join's other renderings: A+ for A3 without X, and E_J with the unrolled X. */
  private static PTransform<PCollection<Integer>, PCollection<KV<Integer, Integer>>> otherJoin(
      WindowSpec w, Duration lateness, boolean multiOutput) {
    return new PTransform<>() {
      @Override
      public PCollection<KV<Integer, Integer>> expand(PCollection<Integer> in) {
        PCollection<Integer> left = in.apply("Left", Filter.by((Integer x) -> x % 2 == 0));
        AggregateJoin.Keyed<Integer, Integer, Integer> join =
            AggregateJoin.with(in.apply("Right", Filter.by((Integer x) -> x % 2 == 1)))
                .within(w)
                .keyedBy(JoinTest::key, JoinTest::key, VarIntCoder.of())
                .withAllowedLateness(lateness);
        return multiOutput
            ? left.apply("Join", join.whereMultiOutput(JoinTest::matches))
            : left.apply("Join", join.embed(JoinTest::matches))
                .apply("X unrolled", Unwrap.unrolled(64, lateness));
      }
    };
  }

  static PTransform<PCollection<Integer>, PCollection<KV<Integer, Integer>>> nativeJoin(
      WindowSpec w, Duration lateness) {
    return new PTransform<>() {
      @Override
      public PCollection<KV<Integer, Integer>> expand(PCollection<Integer> in) {
        PCollection<Integer> windowed =
            in.apply(
                Window.<Integer>into(w.windowFn())
                    .withAllowedLateness(lateness)
                    .withTimestampCombiner(TimestampCombiner.END_OF_WINDOW)
                    .discardingFiredPanes());
        TupleTag<Integer> leftTag = new TupleTag<>();
        TupleTag<Integer> rightTag = new TupleTag<>();
        PCollection<KV<Integer, Integer>> left =
            windowed
                .apply("Left", Filter.by((Integer x) -> x % 2 == 0))
                .apply(
                    "KeyLeft", WithKeys.of(JoinTest::key).withKeyType(TypeDescriptors.integers()));
        PCollection<KV<Integer, Integer>> right =
            windowed
                .apply("Right", Filter.by((Integer x) -> x % 2 == 1))
                .apply(
                    "KeyRight", WithKeys.of(JoinTest::key).withKeyType(TypeDescriptors.integers()));
        return KeyedPCollectionTuple.of(leftTag, left)
            .and(rightTag, right)
            .apply(CoGroupByKey.create())
            .apply("Pairs", ParDo.of(new Pairs(leftTag, rightTag)))
            .setCoder(KvCoder.of(VarIntCoder.of(), VarIntCoder.of()));
      }
    };
  }

  private static final class Pairs extends DoFn<KV<Integer, CoGbkResult>, KV<Integer, Integer>> {
    private final TupleTag<Integer> leftTag;
    private final TupleTag<Integer> rightTag;

    Pairs(TupleTag<Integer> leftTag, TupleTag<Integer> rightTag) {
      this.leftTag = leftTag;
      this.rightTag = rightTag;
    }

    @ProcessElement
    public void process(
        @Element KV<Integer, CoGbkResult> group, OutputReceiver<KV<Integer, Integer>> out) {
      for (int l : group.getValue().getAll(leftTag)) {
        for (int r : group.getValue().getAll(rightTag)) {
          if (matches(l, r)) {
            out.output(KV.of(l, r));
          }
        }
      }
    }
  }

  static EventTimeStream<Integer> stream(long seed, WindowSpec w, boolean late) {
    Random random = new Random(seed);
    EventTimeStream<Integer> s =
        EventTimeStream.of(VarIntCoder.of()).withWindowing(w.windowFn(), L);
    long watermark = 0;
    for (int step = 0; step < 10; step++) {
      for (int i = random.nextInt(9); i > 0; i--) {
        s.onTime(random.nextInt(12), new Instant(watermark + random.nextInt(25)));
      }
      watermark += 4 + random.nextInt(15);
      s.advanceWatermarkTo(new Instant(watermark));
      if (late) {
        for (int i = random.nextInt(3); i > 0; i--) {
          Instant t = new Instant(Math.max(0, watermark - 1 - random.nextInt(70)));
          try {
            s.lateWithinLateness(random.nextInt(12), t);
          } catch (IllegalArgumentException notWithin) {
            try {
              s.lateBeyondLateness(random.nextInt(12), t);
            } catch (IllegalArgumentException neither) {
              s.onTime(random.nextInt(12), new Instant(watermark));
            }
          }
        }
      }
    }
    return s;
  }

  /** A+ emits its pairs in A3's own windows and panes: every field equals the native join's. */
  @OnEachRunner(TestRunner.DIRECT)
  void multiOutputJoinEqualsTheNativeJoinOnEveryFieldWithLateData(TestPipeline p) {
    for (int seed = 20; seed < 24; seed++) {
      WindowSpec w = WINDOWS.get(seed % 2);
      PCollection<Integer> in = p.apply("Stream " + seed, stream(seed, w, true).build());
      Differential.of(
              "native join " + seed, nativeJoin(w, L), "A+ join " + seed, otherJoin(w, L, true))
          .assertSameOutput(in);
    }
    p.run();
  }

  /**
   * One stream per pipeline: the unrolled join's graph is large, and the DirectRunner's work per
   * bundle grows with the graph.
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(ints = {30, 31})
  @ExtendWith(TestPipelineExtension.class)
  void embeddedJoinUnwrappedWithoutLoopsEqualsTheNativeJoin(int seed, TestPipeline p) {
    WindowSpec w = WINDOWS.get(seed % 2);
    PCollection<Integer> in = p.apply("Stream " + seed, stream(seed, w, false).build());
    Differential.of(
            "native join " + seed,
            nativeJoin(w, Duration.ZERO),
            "unrolled join " + seed,
            otherJoin(w, Duration.ZERO, false))
        .ignoring(Differential.Field.WINDOW)
        .assertSameOutput(in);
    p.run();
  }

  @OnEachRunner
  void equalsTheNativeWindowedJoinOnTime(TestPipeline p) {
    for (int seed = 100; seed < 102; seed++) {
      WindowSpec w = WINDOWS.get(seed % 2);
      PCollection<Integer> in = p.apply("Stream " + seed, stream(seed, w, false).build());
      Differential.of(
              "native join " + seed,
              nativeJoin(w, Duration.ZERO),
              "aggregate join " + seed,
              aggregateJoin(w, Duration.ZERO))
          .ignoring(Differential.Field.WINDOW, Differential.Field.PANE_TIMING)
          .assertSameOutput(in);
    }
    p.run();
  }
}
