package dev.eventide.transforms;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.testing.runners.OnEachRunner;
import dev.eventide.testing.runners.TestRunner;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.testing.TestPipeline;

/**
 * {@link DownstreamPanesTest} on embedded Flink: the same four operators, downstream windows,
 * lateness 0 and more, and the same panes (each late input of these streams comes on its own), on
 * four seeds in one pipeline. The streams are replayed through a gate that waits at each watermark
 * advance until the watermark has come out of every compared side's downstream count, so the late
 * data is late for every step of both.
 */
class DownstreamPanesOnFlinkTest {
  @OnEachRunner(TestRunner.FLINK)
  void aLaterAggregationFiresTheSamePanes(TestPipeline p) {
    // Bundles of one element, so that each step passes a watermark on at once.
    p.getOptions().as(FlinkPipelineOptions.class).setMaxBundleSize(1L);
    for (long seed = 0; seed < 4; seed++) {
      DownstreamPanesTest.compareOperators(seed, p, true);
    }
    long before = DownstreamPanesTest.LATE_PANES.get();
    p.run().waitUntilFinish();
    assertTrue(
        DownstreamPanesTest.LATE_PANES.get() > before, "no late pane fired downstream on Flink");
  }
}
