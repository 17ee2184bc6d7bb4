package dev.eventide.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PCollection;
import org.junit.jupiter.api.Test;

/** Counters summed over a job, and over the steps under a name. */
class JobMetricsTest {
  private static final String NAMESPACE = "eventide.test";

  /** Adds each element to counter {@code name}. */
  private static final class CountFn extends DoFn<Long, Long> {
    private final Counter counter;

    CountFn(String name) {
      counter = Metrics.counter(NAMESPACE, name);
    }

    @ProcessElement
    public void process(@Element Long x, OutputReceiver<Long> out) {
      counter.inc(x);
      out.output(x);
    }
  }

  /** Two steps in a composite, both reporting counter "seen". */
  private static final class Twice extends PTransform<PCollection<Long>, PCollection<Long>> {
    @Override
    public PCollection<Long> expand(PCollection<Long> input) {
      return input
          .apply("First", ParDo.of(new CountFn("seen")))
          .apply("Second", ParDo.of(new CountFn("seen")));
    }
  }

  @Test
  void sumsACounterOverTheJobOrOverTheStepsUnderAName() {
    PipelineOptions options = PipelineOptionsFactory.create();
    options.setRunner(DirectRunner.class);
    Pipeline p = Pipeline.create(options);
    PCollection<Long> numbers = p.apply(Create.of(1L, 2L, 3L));
    numbers.apply("Left", new Twice());
    numbers.apply("Right", ParDo.of(new CountFn("seen")));
    PipelineResult result = p.run();
    result.waitUntilFinish();

    assertEquals(18, JobMetrics.counter(result, NAMESPACE, "seen"));
    assertEquals(12, JobMetrics.counter(result, "Left", NAMESPACE, "seen"));
    assertEquals(6, JobMetrics.counter(result, "Left/Second", NAMESPACE, "seen"));
    assertEquals(6, JobMetrics.counter(result, "Right", NAMESPACE, "seen"));
    assertEquals(0, JobMetrics.counter(result, "Nowhere", NAMESPACE, "seen"));
    assertEquals(0, JobMetrics.counter(result, "Left", NAMESPACE, "unknown"));
  }
}
