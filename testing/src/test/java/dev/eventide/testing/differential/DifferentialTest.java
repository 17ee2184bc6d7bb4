package dev.eventide.testing.differential;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.eventide.testing.runners.OnEachRunner;
import dev.eventide.testing.runners.PipelineFailures;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.testing.streams.EventTimeStream;
import java.util.List;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.FlatMapElements;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.Sum;
import org.apache.beam.sdk.transforms.WithTimestamps;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

class DifferentialTest {
  private static final Duration MINUTE = Duration.standardMinutes(1);

  private static Instant t(long seconds) {
    return new Instant(seconds * 1000);
  }

  private static PCollection<Integer> input(TestPipeline p) {
    return p.apply(
        EventTimeStream.of(VarIntCoder.of())
            .withWindowing(FixedWindows.of(MINUTE), MINUTE)
            .onTime(1, t(1))
            .onTime(2, t(2))
            .onTime(2, t(2))
            .onTime(7, t(61))
            .advanceWatermarkTo(t(100))
            .lateWithinLateness(3, t(3))
            .build());
  }

  /** Windowed sums, with allowed lateness: on-time and late panes. */
  private static PTransform<PCollection<Integer>, PCollection<Integer>> windowedSum(
      Duration lateness) {
    return new PTransform<>() {
      @Override
      public PCollection<Integer> expand(PCollection<Integer> in) {
        return in.apply(
                Window.<Integer>into(FixedWindows.of(MINUTE))
                    .withAllowedLateness(lateness)
                    .accumulatingFiredPanes())
            .apply(Combine.globally(Sum.ofIntegers()).withoutDefaults());
      }
    };
  }

  @OnEachRunner
  void equalTransformsPass(TestPipeline p) {
    PCollection<Integer> input = input(p);
    Differential.of(
            "filter",
            Filter.by((Integer x) -> x % 2 == 1),
            "flatMap",
            FlatMapElements.into(TypeDescriptors.integers())
                .via((Integer x) -> x % 2 == 1 ? List.of(x) : List.of()))
        .assertSameOutput(input);
    Differential.of("sum", windowedSum(Duration.ZERO), "sameSum", windowedSum(Duration.ZERO))
        .assertSameOutput(input);
    p.run();
  }

  @OnEachRunner
  void catchesADifferentValueAndShowsTheDiff(TestPipeline p) {
    Differential.of(
            "plusOne",
            MapElements.into(TypeDescriptors.integers()).via((Integer x) -> x + 1),
            "plusOneExceptSeven",
            MapElements.into(TypeDescriptors.integers()).via((Integer x) -> x == 7 ? 7 : x + 1))
        .assertSameOutput(input(p));
    String message = failureMessage(p);
    assertThat(message, containsString("plusOne emitted 5 elements, plusOneExceptSeven emitted 5"));
    assertThat(message, containsString("emitted by plusOne, missing from plusOneExceptSeven:"));
    assertThat(message, containsString("1 × value=8 timestamp=1970-01-01T00:01:01.000Z"));
    assertThat(message, containsString("1 × value=7 timestamp=1970-01-01T00:01:01.000Z"));
  }

  @OnEachRunner
  void catchesMultiplicityDifferences(TestPipeline p) {
    Differential.of(
            "once",
            Filter.by((Integer x) -> true),
            "twiceForOne",
            FlatMapElements.into(TypeDescriptors.integers())
                .via((Integer x) -> x == 1 ? List.of(x, x) : List.of(x)))
        .assertSameOutput(input(p));
    String message = failureMessage(p);
    assertThat(message, containsString("once emitted 5 elements, twiceForOne emitted 6"));
    assertThat(message, containsString("emitted by twiceForOne, missing from once:"));
    assertThat(message, containsString("1 × value=1 timestamp=1970-01-01T00:00:01.000Z"));
  }

  /** Flink does not order TestStream watermarks before later elements; see TestRunner. */
  @OnEachRunner(TestRunner.DIRECT)
  void catchesDroppedLateDataAsAPaneDifference(TestPipeline p) {
    // Without lateness the late 3 is dropped: the late pane with sum 8 is missing.
    Differential.of("late", windowedSum(MINUTE), "noLateness", windowedSum(Duration.ZERO))
        .assertSameOutput(input(p));
    String message = failureMessage(p);
    assertThat(message, containsString("emitted by late, missing from noLateness:"));
    assertThat(message, containsString("value=8"));
    assertThat(message, containsString("pane=LATE"));
  }

  @OnEachRunner
  void ignoredFieldsAreNotCompared(TestPipeline p) {
    Differential.of(
            "original",
            Filter.by((Integer x) -> true),
            "shifted",
            WithTimestamps.<Integer>of(x -> t(1000)).withAllowedTimestampSkew(Duration.ZERO))
        .ignoring(Differential.Field.TIMESTAMP, Differential.Field.WINDOW)
        .assertSameOutput(input(p));
    p.run();
  }

  @Test
  void rejectsSidesWithTheSameName() {
    Filter<Integer> all = Filter.by((Integer x) -> true);
    assertThrows(IllegalArgumentException.class, () -> Differential.of("a", all, "a", all));
  }

  /** Runs the pipeline, expecting it to fail on the assertion, and returns the failure text. */
  private static String failureMessage(TestPipeline p) {
    String messages = PipelineFailures.messagesOfFailedRun(p);
    assertThat(messages, containsString("outputs differ"));
    return messages;
  }
}
