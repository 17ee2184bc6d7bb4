package dev.eventide.tiering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LateEventGenerator;
import dev.eventide.testing.differential.Differential;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.testing.streams.EventTimeStream;
import dev.eventide.testing.streams.GatedReplay;
import dev.eventide.testing.streams.LateEventStreams;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.SlidingWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a windowed step after {@link TieredWindow} sees: the same panes, at the same watermarks, as
 * after Beam's {@code Window...withAllowedLateness(L).accumulatingFiredPanes()} + {@code
 * GroupByKey} with the same function. On-time results reach the downstream windows on time however
 * long the allowed lateness, late results come as late data, and the results' windowing carries the
 * allowed lateness, so that a downstream window keeps them.
 */
class TieredWindowDownstreamTest {
  private static final Duration WINDOW = Duration.standardSeconds(10);
  private static final Duration HOUR = Duration.standardHours(1);

  private static Instant t(long seconds) {
    return new Instant(seconds * 1000);
  }

  private static IntervalWindow window(long startSecond) {
    return new IntervalWindow(t(startSecond), t(startSecond + 10));
  }

  /**
   * A value at 1 s, a late one at 2 s after the watermark passed 15 s, an on-time one at 21 s, then
   * the watermark to 30 s and past the hour of lateness. Downstream, window [0, 10) fires on time
   * with the on-time result and again late with the late one; [20, 30) fires on time at 30 s.
   */
  @ParameterizedTest(name = "{0}, gated {1}")
  @MethodSource("runnersAndGates")
  void onTimeResultsReachADownstreamWindowOnTimeAndLateResultsComeLate(
      TestRunner runner, boolean gated) {
    EventTimeStream<KV<Integer, Long>> stream =
        EventTimeStream.of(KvCoder.of(VarIntCoder.of(), VarLongCoder.of()))
            .withWindowing(FixedWindows.of(WINDOW), HOUR)
            .onTime(KV.of(1, 1L), t(1))
            .advanceWatermarkTo(t(15))
            .lateWithinLateness(KV.of(1, 2L), t(2))
            .onTime(KV.of(1, 21L), t(21))
            .advanceWatermarkTo(t(30))
            .advanceWatermarkTo(t(3609))
            .advanceWatermarkTo(t(3611));
    Pipeline p = Pipeline.create(TieredVsNative.options(runner));
    GatedReplay<KV<Integer, Long>> replay = stream.replay();
    PCollection<KV<Integer, Long>> input =
        runner.honorsTestStreamWatermarks() ? p.apply(stream.build()) : p.apply(replay);
    PTransform<PCollection<KV<Integer, Long>>, PCollection<KV<Integer, String>>> tiered =
        thenDownstream(tiered(FixedWindows.of(WINDOW), HOUR, gated), FixedWindows.of(WINDOW), null);
    PTransform<PCollection<KV<Integer, Long>>, PCollection<KV<Integer, String>>> reference =
        thenDownstream(
            nativeSummaries(FixedWindows.of(WINDOW), HOUR), FixedWindows.of(WINDOW), null);
    PCollection<KV<Integer, String>> downstream =
        input.apply("Downstream of tiered", probed(runner, replay, tiered));
    PAssert.that(downstream).inOnTimePane(window(0)).containsInAnyOrder(KV.of(1, "1:[0=1:[1]]"));
    PAssert.that(downstream).inLatePane(window(0)).containsInAnyOrder(KV.of(1, "2:[0=2:[1, 2]]"));
    PAssert.that(downstream)
        .inOnTimePane(window(20))
        .containsInAnyOrder(KV.of(1, "1:[20000=1:[21]]"));
    Differential.of(
            "native", probed(runner, replay, reference), "tiered", probed(runner, replay, tiered))
        .assertSameOutput(input);
    p.run().waitUntilFinish();
  }

  static List<Object[]> runnersAndGates() {
    List<Object[]> cases = new ArrayList<>();
    for (TestRunner runner : TestRunner.values()) {
      cases.add(new Object[] {runner, false});
      cases.add(new Object[] {runner, true});
    }
    return cases;
  }

  static LongStream directSeeds() {
    return LongStream.rangeClosed(1, 8);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("directSeeds")
  void aDownstreamWindowSeesTheReferencesOnTimeAndFinalPanes(long seed) {
    runDifferential(TestRunner.DIRECT, seed);
  }

  static LongStream flinkSeeds() {
    return LongStream.rangeClosed(1, 4);
  }

  /**
   * On embedded Flink, from a gated replay: the downstream window inherits the allowed lateness
   * (with less, which late results it still takes depends on thread timing there, after the
   * reference too). Per key and downstream window, the final pane is the reference's, and every
   * pane is well formed: one on-time pane at most, first, indexes in order. (Before the results'
   * windowing asked for on-time panes only when non-empty, Beam on Flink fired a second, empty
   * on-time pane for the last windows: docs/decisions/tiered-window-downstream-differential-on-
   * flink.md.)
   */
  @ParameterizedTest(name = "seed {0}")
  @MethodSource("flinkSeeds")
  void onFlinkADownstreamWindowSeesTheReferencesFinalPanes(long seed) {
    runDifferential(TestRunner.FLINK, seed);
  }

  /**
   * A seeded late stream through the reference and through {@link TieredWindow} (tumbling or
   * sliding windows; plain, or behind its gate with dead letters), then one downstream window:
   * tumbling or sliding, of the upstream size or larger, its lateness inherited or explicitly zero
   * (Beam keeps the larger of its own and its input's). Per key and downstream window, the on-time
   * pane and the final pane must be the reference's; how many late panes come between depends on
   * how the upstream late results are bundled, as upstream.
   *
   * <p>On Flink with the downstream lateness inherited only, and final panes compared (and every
   * pane's form): which upstream late results a downstream on-time pane (or, with a downstream
   * lateness of 0, any pane) takes depends on thread timing there, after the reference too.
   */
  private static void runDifferential(TestRunner runner, long seed) {
    boolean direct = runner == TestRunner.DIRECT;
    WindowFn<Object, ?> upstream =
        seed % 2 == 0
            ? SlidingWindows.of(WINDOW).every(Duration.standardSeconds(5))
            : FixedWindows.of(WINDOW);
    WindowFn<Object, ?> downstream =
        switch ((int) (seed % 3)) {
          case 0 -> FixedWindows.of(WINDOW);
          case 1 -> FixedWindows.of(WINDOW.multipliedBy(2));
          default -> SlidingWindows.of(WINDOW.multipliedBy(2)).every(WINDOW);
        };
    Duration downstreamLateness = !direct || seed % 4 < 2 ? null : Duration.ZERO;
    Duration lateness = WINDOW.multipliedBy(1 + seed % 3);
    boolean gated = seed % 5 < 2;
    // Pane checks only: the sides are applied below.
    TieredVsNative.Variant variant =
        new TieredVsNative.Variant(gated ? "gated" : "tiered", 1, 1 << 20, 0, true, false);
    Map<String, PTransform<PCollection<LateEvent>, PCollection<KV<Integer, String>>>> sides =
        new LinkedHashMap<>();
    sides.put(
        "native",
        keyedThen(
            thenDownstream(nativeSummaries(upstream, lateness), downstream, downstreamLateness)));
    sides.put(
        variant.name(),
        keyedThen(
            thenDownstream(tiered(upstream, lateness, gated), downstream, downstreamLateness)));

    LateEventGenerator events = TieredVsNative.stream(seed, 0.3);
    Pipeline p = Pipeline.create(TieredVsNative.options(runner));
    PCollection<LateEvent> input =
        direct
            ? p.apply(LateEventStreams.testStream(events))
            : p.apply(LateEventStreams.gatedReplay(events));
    PCollectionList<KV<String, String>> observed = PCollectionList.empty(p);
    for (Map.Entry<String, PTransform<PCollection<LateEvent>, PCollection<KV<Integer, String>>>>
        side : sides.entrySet()) {
      observed =
          observed.and(
              input
                  .apply(side.getKey(), side.getValue())
                  .apply(
                      "Observe " + side.getKey(),
                      ParDo.of(new TieredVsNative.Observe(side.getKey()))));
    }
    PAssert.that(observed.apply(Flatten.pCollections()).apply(Window.into(new GlobalWindows())))
        .satisfies(
            observations -> {
              List<String> differences =
                  new ArrayList<>(
                      TieredVsNative.differences(observations, List.of(variant), direct));
              if (!direct) {
                // On Flink a downstream window's on-time pane takes the upstream late results that
                // reach it before its end, which depends on thread timing there: Beam's fire
                // per element, TieredWindow's at the next watermark advance. Final panes only.
                differences.removeIf(d -> d.contains(": on time "));
              }
              assertTrue(
                  differences.isEmpty(),
                  differences.size()
                      + " differences downstream, first ones:\n"
                      + String.join(
                          "\n", differences.subList(0, Math.min(20, differences.size()))));
              return null;
            });
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals(
        0,
        TieringMetrics.counter(result, TieringMetrics.WINDOWS_HOLDING_STATE),
        "keys holding state at the end");
  }

  private static PTransform<PCollection<LateEvent>, PCollection<KV<Integer, String>>> keyedThen(
      PTransform<PCollection<KV<Integer, Long>>, PCollection<KV<Integer, String>>> transform) {
    return new PTransform<>() {
      @Override
      public PCollection<KV<Integer, String>> expand(PCollection<LateEvent> events) {
        return TieredVsNative.keyed(events).apply("Keyed", transform);
      }
    };
  }

  /** The reference: Beam's windowing with the lateness, accumulating, each pane summarised. */
  private static PTransform<PCollection<KV<Integer, Long>>, PCollection<KV<Integer, String>>>
      nativeSummaries(WindowFn<Object, ?> windows, Duration lateness) {
    return new PTransform<>() {
      @Override
      public PCollection<KV<Integer, String>> expand(PCollection<KV<Integer, Long>> input) {
        return TieredVsNative.nativeSummaries(input, windows, lateness);
      }
    };
  }

  /** {@link TieredWindow} summarising each key's values per window, plain or behind its gate. */
  private static PTransform<PCollection<KV<Integer, Long>>, PCollection<KV<Integer, String>>>
      tiered(WindowFn<Object, ?> windows, Duration lateness, boolean gated) {
    TieredWindow<Integer, Long, String> window =
        TieredWindow.of(windows, new TieredVsNative.Summary())
            .withAllowedLateness(lateness)
            .withStore("memory:" + UUID.randomUUID())
            .withMemoryBucket(1, 1 << 20);
    if (!gated) {
      return window;
    }
    return new PTransform<>() {
      @Override
      public PCollection<KV<Integer, String>> expand(PCollection<KV<Integer, Long>> input) {
        return input.apply("Gated", window.withDeadLetters()).results();
      }
    };
  }

  /**
   * {@code upstream}, then a window ({@code lateness} null: the input's) and a {@code GroupByKey}
   * whose panes list, per upstream window, the latest upstream result they hold (the one of most
   * values: upstream panes accumulate), as {@code start=summary}, sorted, after the number of
   * values in all of them. A downstream pane thus depends on which upstream results reached it on
   * time or late, not on how many late panes came between.
   */
  private static PTransform<PCollection<KV<Integer, Long>>, PCollection<KV<Integer, String>>>
      thenDownstream(
          PTransform<PCollection<KV<Integer, Long>>, PCollection<KV<Integer, String>>> upstream,
          WindowFn<Object, ?> windows,
          Duration lateness) {
    return new PTransform<>() {
      @Override
      public PCollection<KV<Integer, String>> expand(PCollection<KV<Integer, Long>> input) {
        Window<KV<Integer, String>> window = Window.into(windows);
        if (lateness != null) {
          window = window.withAllowedLateness(lateness);
        }
        return input
            .apply("Upstream", upstream)
            .apply("Upstream window", ParDo.of(new TagUpstreamWindow()))
            .setCoder(KvCoder.of(VarIntCoder.of(), StringUtf8Coder.of()))
            .apply("Downstream window", window)
            .apply("Downstream group", GroupByKey.create())
            .apply(
                "Downstream pane",
                MapElements.into(
                        TypeDescriptors.kvs(TypeDescriptors.integers(), TypeDescriptors.strings()))
                    .via(kv -> KV.of(kv.getKey(), latestPerUpstreamWindow(kv.getValue()))))
            .setCoder(KvCoder.of(VarIntCoder.of(), StringUtf8Coder.of()));
      }
    };
  }

  /** An upstream result as {@code start=summary}: its window's start in milliseconds. */
  private static final class TagUpstreamWindow
      extends DoFn<KV<Integer, String>, KV<Integer, String>> {
    @ProcessElement
    public void process(
        @Element KV<Integer, String> result,
        BoundedWindow window,
        OutputReceiver<KV<Integer, String>> out) {
      long start = ((IntervalWindow) window).start().getMillis();
      out.output(KV.of(result.getKey(), start + "=" + result.getValue()));
    }
  }

  private static String latestPerUpstreamWindow(Iterable<String> tagged) {
    Map<String, String> latest = new TreeMap<>();
    for (String t : tagged) {
      String start = t.substring(0, t.indexOf('='));
      latest.merge(start, t, (a, b) -> valuesIn(a) >= valuesIn(b) ? a : b);
    }
    // Led by the values in all: the final pane of an accumulating window has the most.
    long values = latest.values().stream().mapToLong(TieredWindowDownstreamTest::valuesIn).sum();
    return values + ":" + latest.values();
  }

  private static long valuesIn(String tagged) {
    return Long.parseLong(tagged.substring(tagged.indexOf('=') + 1, tagged.indexOf(':')));
  }

  private static <T> PTransform<PCollection<T>, PCollection<KV<Integer, String>>> probed(
      TestRunner runner,
      GatedReplay<T> replay,
      PTransform<PCollection<T>, PCollection<KV<Integer, String>>> transform) {
    return runner.honorsTestStreamWatermarks() ? transform : replay.probed(transform);
  }
}
