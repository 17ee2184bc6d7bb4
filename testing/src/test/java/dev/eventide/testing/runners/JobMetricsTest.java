package dev.eventide.testing.runners;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.eventide.runtime.JobMetrics;
import dev.eventide.testing.streams.EventTimeStream;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.joda.time.Duration;
import org.joda.time.Instant;

class JobMetricsTest {
  private static final class CountFn extends DoFn<Integer, Void> {
    private final Counter seen = Metrics.counter("eventide.test", "seen");

    @ProcessElement
    public void process() {
      seen.inc();
    }
  }

  @OnEachRunner
  void sumsACounterOverEveryStep(TestPipeline p) {
    p.apply("First", Create.of(1, 2, 3)).apply("CountFirst", ParDo.of(new CountFn()));
    p.apply("Second", Create.of(4, 5)).apply("CountSecond", ParDo.of(new CountFn()));
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals(5, JobMetrics.counter(result, "eventide.test", "seen"));
    assertEquals(0, JobMetrics.counter(result, "eventide.test", "never"));
  }

  /** Beam's windowed GroupByKey counts what it drops under a different name on each runner. */
  @OnEachRunner
  void readsTheLateValuesAGroupByKeyDropped(TestPipeline p) {
    EventTimeStream<KV<String, Integer>> stream =
        EventTimeStream.of(KvCoder.of(StringUtf8Coder.of(), VarIntCoder.of()))
            .withWindowing(FixedWindows.of(Duration.millis(10)), Duration.ZERO)
            .onTime(KV.of("a", 1), new Instant(5))
            .advanceWatermarkTo(new Instant(100))
            .lateBeyondLateness(KV.of("a", 2), new Instant(3))
            .lateBeyondLateness(KV.of("b", 3), new Instant(4));
    p.apply(stream.replay())
        .apply(Window.into(FixedWindows.of(Duration.millis(10))))
        .apply(GroupByKey.create());
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals(2, JobMetrics.droppedDueToLateness(result));
  }
}
