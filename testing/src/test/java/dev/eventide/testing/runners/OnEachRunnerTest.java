package dev.eventide.testing.runners;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.runners.flink.TestFlinkRunner;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

class OnEachRunnerTest {

  @OnEachRunner
  void runsTheSamePipelineOnEachRunner(TestPipeline p, TestRunner runner) {
    if (runner == TestRunner.FLINK) {
      FlinkPipelineOptions flink = p.getOptions().as(FlinkPipelineOptions.class);
      assertThat(flink.getRunner(), equalTo(TestFlinkRunner.class));
      assertThat(flink.getFlinkMaster(), equalTo("[local]"));
      assertThat(flink.isStreaming(), is(true));
    } else {
      assertThat(p.getOptions().getRunner(), equalTo(DirectRunner.class));
    }
    PCollection<Integer> doubled =
        p.apply(Create.of(1, 2, 3))
            .apply(MapElements.into(TypeDescriptors.integers()).via(x -> 2 * x));
    PAssert.that(doubled).containsInAnyOrder(2, 4, 6);
    p.run();
  }

  /** Flink does not order TestStream watermarks before later elements; see TestRunner. */
  @OnEachRunner(TestRunner.DIRECT)
  void testStreamLateDataReachesALatePane(TestPipeline p) {
    Instant t0 = new Instant(0);
    TestStream<String> stream =
        TestStream.create(StringUtf8Coder.of())
            .addElements(TimestampedValue.of("a", t0.plus(Duration.standardSeconds(1))))
            .advanceWatermarkTo(t0.plus(Duration.standardSeconds(90)))
            .addElements(TimestampedValue.of("b", t0.plus(Duration.standardSeconds(2))))
            .advanceWatermarkToInfinity();
    PCollection<Long> counts =
        p.apply(stream)
            .apply(
                Window.<String>into(FixedWindows.of(Duration.standardMinutes(1)))
                    .withAllowedLateness(Duration.standardMinutes(5))
                    .accumulatingFiredPanes())
            .apply(Combine.globally(Count.<String>combineFn()).withoutDefaults());
    IntervalWindow first = new IntervalWindow(t0, Duration.standardMinutes(1));
    PAssert.that(counts).inOnTimePane(first).containsInAnyOrder(1L);
    PAssert.that(counts).inLatePane(first).containsInAnyOrder(2L);
    p.run();
  }

  @OnEachRunner
  void testStreamWatermarkFiresEachWindowOnTime(TestPipeline p) {
    Instant t0 = new Instant(0);
    TestStream<String> stream =
        TestStream.create(StringUtf8Coder.of())
            .addElements(
                TimestampedValue.of("a", t0.plus(Duration.standardSeconds(1))),
                TimestampedValue.of("b", t0.plus(Duration.standardSeconds(61))),
                TimestampedValue.of("c", t0.plus(Duration.standardSeconds(2))))
            .advanceWatermarkTo(t0.plus(Duration.standardSeconds(90)))
            .advanceWatermarkToInfinity();
    PCollection<Long> counts =
        p.apply(stream)
            .apply(Window.into(FixedWindows.of(Duration.standardMinutes(1))))
            .apply(Combine.globally(Count.<String>combineFn()).withoutDefaults());
    PAssert.that(counts)
        .inOnTimePane(new IntervalWindow(t0, Duration.standardMinutes(1)))
        .containsInAnyOrder(2L);
    PAssert.that(counts)
        .inOnTimePane(
            new IntervalWindow(t0.plus(Duration.standardMinutes(1)), Duration.standardMinutes(1)))
        .containsInAnyOrder(1L);
    p.run();
  }

  @Test
  void rejectsNonPositiveFlinkParallelism() {
    IllegalArgumentException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class, () -> TestRunner.FLINK.options(0));
    assertThat(e.getMessage(), equalTo("Flink parallelism must be >= 1, but was 0"));
  }
}
