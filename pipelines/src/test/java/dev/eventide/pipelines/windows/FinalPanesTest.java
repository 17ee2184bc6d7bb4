package dev.eventide.pipelines.windows;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.eventide.testing.runners.TestRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.AfterPane;
import org.apache.beam.sdk.transforms.windowing.AfterWatermark;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.Sessions;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * One final value per key and window, after an on-time pane and late panes: the last pane's value,
 * how many panes fired, at the window's end plus the allowed lateness.
 */
class FinalPanesTest {
  private static final Duration WINDOW = Duration.standardSeconds(10);
  private static final Duration LATENESS = Duration.standardSeconds(30);

  @Test
  void emitsTheLastPanePerKeyAndWindowOnceItsLatenessIsOver() {
    Pipeline p = Pipeline.create(TestRunner.DIRECT.options(1));
    TestStream<KV<String, Long>> events =
        TestStream.create(KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of()))
            .addElements(at("a", 1), at("a", 2), at("b", 3), at("a", 12))
            .advanceWatermarkTo(new Instant(20_000)) // [0, 10) and [10, 20) fire on time
            .addElements(at("a", 4)) // late for [0, 10): a second pane
            .advanceWatermarkTo(new Instant(25_000))
            .addElements(at("a", 5), at("b", 6)) // late again: third pane of a, second of b
            .advanceWatermarkToInfinity();
    PCollection<KV<String, FinalValue<Long>>> finals =
        p.apply(events)
            .apply(
                Window.<KV<String, Long>>into(FixedWindows.of(WINDOW))
                    .triggering(
                        AfterWatermark.pastEndOfWindow()
                            .withLateFirings(AfterPane.elementCountAtLeast(1)))
                    .withAllowedLateness(LATENESS)
                    .accumulatingFiredPanes())
            .apply(Count.perKey())
            .apply(FinalPanes.afterLateness(LATENESS, "test"));
    PAssert.that(finals.apply(ParDo.of(new WithTimestamp())))
        .containsInAnyOrder(
            "a [0, 10000) 3 panes: 4 at 40000",
            "b [0, 10000) 2 panes: 2 at 40000",
            "a [10000, 20000) 1 panes: 1 at 50000");
    p.run().waitUntilFinish();
  }

  private static TimestampedValue<KV<String, Long>> at(String key, long second) {
    return TimestampedValue.of(KV.of(key, second), new Instant(second * 1_000));
  }

  private static final class WithTimestamp extends DoFn<KV<String, FinalValue<Long>>, String> {
    @ProcessElement
    public void process(
        @Element KV<String, FinalValue<Long>> kv,
        @Timestamp Instant timestamp,
        OutputReceiver<String> out) {
      FinalValue<Long> v = kv.getValue();
      out.output(
          String.format(
              "%s [%d, %d) %d panes: %d at %d",
              kv.getKey(), v.start(), v.end(), v.panes(), v.value(), timestamp.getMillis()));
    }
  }

  @Test
  void refusesWindowsWithoutAStartAndAnEnd() {
    Pipeline p = Pipeline.create(TestRunner.DIRECT.options(1));
    PCollection<KV<String, Long>> sessions =
        p.apply(Create.of(KV.of("a", 1L))).apply(Window.into(Sessions.withGapDuration(WINDOW)));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> sessions.apply(FinalPanes.afterLateness(LATENESS, "test")));
    assertThat(e.getMessage(), containsString("windows with a start and an end"));
  }
}
