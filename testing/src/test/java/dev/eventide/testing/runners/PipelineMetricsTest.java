package dev.eventide.testing.runners;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;

class PipelineMetricsTest {
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
    assertEquals(5, PipelineMetrics.counter(result, "eventide.test", "seen"));
    assertEquals(0, PipelineMetrics.counter(result, "eventide.test", "never"));
  }
}
