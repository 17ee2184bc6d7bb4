package dev.eventide.transforms;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.eventide.testing.runners.OnEachRunner;
import dev.eventide.testing.runners.PipelineFailures;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.testing.streams.EventTimeStream;
import dev.eventide.transforms.primitives.Aggregate;
import dev.eventide.transforms.primitives.Loop;
import dev.eventide.transforms.primitives.WindowSpec;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.MapCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.Reify;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The documented differences from Beam's native transforms, asserted exactly, and the limits:
 * multiplicity, the loop guard, coder checks.
 */
class SemanticDifferencesTest {
  private static final Duration L = Duration.millis(10);

  private static Instant t(long millis) {
    return new Instant(millis);
  }

  private static IntervalWindow delta(long millis) {
    return new IntervalWindow(t(millis), WindowSpec.DELTA);
  }

  /** a on time; b late within L; c late beyond L. */
  private static TestStream<Integer> lateScenario() {
    return EventTimeStream.of(VarIntCoder.of())
        .withWindowing(FixedWindows.of(WindowSpec.DELTA), L)
        .onTime(1, t(1))
        .advanceWatermarkTo(t(8))
        .lateWithinLateness(5, t(5))
        .advanceWatermarkTo(t(100))
        .lateBeyondLateness(3, t(2))
        .build();
  }

  @OnEachRunner(TestRunner.DIRECT)
  void outputsComeAtTheWatermarkInDeltaWindowsInPanesAsLateAsTheirInputs(TestPipeline p) {
    PCollection<Integer> out =
        p.apply(lateScenario())
            .apply(AggregateFilter.by((Integer x) -> true).withAllowedLateness(L));
    PAssert.that(out).inOnTimePane(delta(1)).containsInAnyOrder(1);
    PAssert.that(out).inLatePane(delta(5)).containsInAnyOrder(5);
    PAssert.that(out).inLatePane(delta(1)).empty();
    PAssert.that(out).inOnTimePane(delta(5)).empty();
    p.run();
  }

  @OnEachRunner(TestRunner.DIRECT)
  void tuplesLaterThanTheLatenessAreDroppedWhereNativeFilterKeepsThem(TestPipeline p) {
    PCollection<Integer> input = p.apply(lateScenario());
    PCollection<TimestampedValue<Integer>> aggregate =
        input
            .apply("Aggregate", AggregateFilter.by((Integer x) -> true).withAllowedLateness(L))
            .apply("AggregateTimestamps", Reify.timestamps());
    PCollection<TimestampedValue<Integer>> nativeOut =
        input
            .apply("Native", Filter.by((Integer x) -> true))
            .apply("NativeTimestamps", Reify.timestamps());
    PAssert.that(aggregate)
        .containsInAnyOrder(TimestampedValue.of(1, t(1)), TimestampedValue.of(5, t(5)));
    PAssert.that(nativeOut)
        .containsInAnyOrder(
            TimestampedValue.of(1, t(1)),
            TimestampedValue.of(5, t(5)),
            TimestampedValue.of(3, t(2)));
    p.run();
  }

  /**
   * Downstream, a long allowed lateness holds the watermark back no more than Beam's own lateness
   * rule does: a later windowed count (1 s windows, no lateness) fires the same panes as after the
   * native Filter followed by a GroupByKey with the same lateness — the on-time tuple in its
   * on-time pane, and the tuple late within L in a late pane (a GroupByKey with allowed lateness
   * passes a late element on that a later step without lateness still takes).
   */
  @OnEachRunner(TestRunner.DIRECT)
  void aLongLatenessHoldsTheWatermarkNoMoreThanBeamsLatenessRule(TestPipeline p) {
    Duration longLateness = Duration.standardHours(1);
    TestStream<Integer> stream =
        EventTimeStream.of(VarIntCoder.of())
            .withWindowing(FixedWindows.of(WindowSpec.DELTA), longLateness)
            .onTime(1, t(500))
            .advanceWatermarkTo(t(5_000))
            .lateWithinLateness(2, t(200))
            .advanceWatermarkTo(t(10_000))
            .build();
    PCollection<Integer> input = p.apply(stream);
    IntervalWindow firstSecond = new IntervalWindow(t(0), t(1_000));
    for (boolean aggregate : List.of(true, false)) {
      String side = aggregate ? "Aggregate" : "Reference";
      PCollection<Long> counts =
          input
              .apply(
                  side,
                  aggregate
                      ? AggregateFilter.by((Integer x) -> true).withAllowedLateness(longLateness)
                      : NativeReference.of(Filter.by((Integer x) -> true), longLateness))
              .apply(
                  side + "Seconds",
                  Window.<Integer>into(FixedWindows.of(Duration.standardSeconds(1)))
                      .withAllowedLateness(Duration.ZERO)
                      .discardingFiredPanes())
              .apply(
                  side + "Count", Combine.globally(Count.<Integer>combineFn()).withoutDefaults());
      PAssert.that(side + " on time", counts).inOnTimePane(firstSecond).containsInAnyOrder(1L);
      PAssert.that(side + " late", counts).inLatePane(firstSecond).containsInAnyOrder(1L);
    }
    p.run();
  }

  @OnEachRunner(TestRunner.DIRECT)
  void withoutLatenessALateTupleIsDropped(TestPipeline p) {
    PCollection<TimestampedValue<Integer>> out =
        p.apply(lateScenario())
            .apply(AggregateMap.into(TypeDescriptors.integers()).via((Integer x) -> x * 10))
            .apply(Reify.timestamps());
    PAssert.that(out).containsInAnyOrder(TimestampedValue.of(10, t(1)));
    p.run();
  }

  @OnEachRunner
  void tenThousandIdenticalTuplesKeepTheirMultiplicity(TestPipeline p) {
    List<TimestampedValue<Integer>> events =
        new ArrayList<>(Collections.nCopies(10_000, TimestampedValue.of(7, t(42))));
    events.add(TimestampedValue.of(8, t(42)));
    PCollection<Long> count =
        p.apply(Create.timestamped(events))
            .apply(AggregateMap.into(TypeDescriptors.strings()).via((Integer x) -> "same"))
            .apply(Combine.globally(Count.<String>combineFn()).withoutDefaults());
    PAssert.that(count).containsInAnyOrder(10_001L);
    p.run();
  }

  @OnEachRunner
  void fanOutKeepsMultiplicityAcrossDifferentInputsWithEqualOutputs(TestPipeline p) {
    // Two copies of 1 (each -> [0]) and one 2 (-> [0, 0]) at one millisecond: four zeros.
    PCollection<Long> zeros =
        p.apply(
                Create.timestamped(
                    TimestampedValue.of(1, t(3)),
                    TimestampedValue.of(1, t(3)),
                    TimestampedValue.of(2, t(3))))
            .apply(
                AggregateFlatMap.into(TypeDescriptors.integers())
                    .via((Integer x) -> Collections.nCopies(x, 0)))
            .apply(Combine.globally(Count.<Integer>combineFn()).withoutDefaults());
    PAssert.that(zeros).containsInAnyOrder(4L);
    p.run();
  }

  @OnEachRunner(TestRunner.DIRECT)
  void loopThatNeverStopsFailsThePipelineClearly(TestPipeline p) {
    p.apply(Create.of(1))
        .apply(
            Loop.of(
                    Aggregate.byAllAttributes(
                            (IntervalWindow window, Integer x, List<Integer> copies) ->
                                Optional.of(x + 1))
                        .withOutputCoder(VarIntCoder.of()))
                .withMaxIterations(1_000));
    String messages = PipelineFailures.messagesOfFailedRun(p);
    assertThat(messages, containsString("Loop did not converge"));
    assertThat(messages, containsString("after 1000 iterations, starting from 1"));
    assertThat(messages, containsString("Loop.withMaxIterations"));
  }

  @Test
  void rejectsNonDeterministicTupleCoders() {
    MapCoder<String, Integer> coder = MapCoder.of(StringUtf8Coder.of(), VarIntCoder.of());
    PCollection<Map<String, Integer>> maps =
        Pipeline.create().apply(Create.of(List.of(Map.of("a", 1))).withCoder(coder));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                maps.apply(
                    Aggregate.<Map<String, Integer>, Integer>byAllAttributes(
                            (w, m, copies) -> Optional.of(copies.size()))
                        .withOutputCoder(VarIntCoder.of())));
    assertThat(e.getMessage(), containsString(coder.toString()));
    assertThat(e.getMessage(), containsString("is not deterministic"));
    assertThat(e.getMessage(), containsString("compares keys by their encoding"));
  }

  @Test
  void rejectsBadParameters() {
    assertThat(
        assertThrows(
                IllegalArgumentException.class,
                () ->
                    AggregateFilter.by((Integer x) -> true)
                        .withAllowedLateness(Duration.millis(-1)))
            .getMessage(),
        containsString("allowedLateness must be >= 0, but was PT-0.001S"));
    assertThat(
        assertThrows(
                IllegalArgumentException.class,
                () -> WindowSpec.sliding(Duration.millis(10), Duration.millis(20)))
            .getMessage(),
        containsString("window advance WA must be in (0, WS = PT0.010S], but was PT0.020S"));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            Loop.of(
                Aggregate.within(WindowSpec.tumbling(Duration.millis(5)))
                    .keyedBy((Integer x) -> x)
                    .withKeyCoder(VarIntCoder.of())
                    .via((w, k, ts) -> Optional.of(k))
                    .withOutputCoder(VarIntCoder.of())));
  }
}
