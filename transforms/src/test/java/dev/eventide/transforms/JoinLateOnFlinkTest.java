package dev.eventide.transforms;

import dev.eventide.testing.differential.Differential;
import dev.eventide.testing.runners.OnEachRunner;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.testing.streams.GatedReplay;
import dev.eventide.transforms.primitives.WindowSpec;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.values.PCollection;

/**
 * The late-data join differential of {@link JoinDirectTest} on embedded Flink, on the same fields:
 * value, timestamp and pane timing (X emits in 1 ms windows, so not the window).
 *
 * <p>Flink's {@code TestStream} lets elements overtake watermarks, so the streams are replayed
 * through a {@link GatedReplay} whose gate waits, at each watermark advance, until the watermark
 * has come out of both joins. That is needed for the native join as much as for the Aggregate one:
 * a step that reads two inputs (the native {@code CoGroupByKey}, A3) takes the minimum of their
 * watermarks, and with two channels a late tuple on one can arrive before the watermark on the
 * other, and land in the on-time pane; which it does depends on thread timing (it did, in about one
 * run in two, for the native join with a gate at the source only).
 */
class JoinLateOnFlinkTest {
  @OnEachRunner(TestRunner.FLINK)
  void equalsTheNativeWindowedJoinWithLateData(TestPipeline p) {
    // Bundles of one element, so that each step passes a watermark on at once.
    p.getOptions().as(FlinkPipelineOptions.class).setMaxBundleSize(1L);
    for (int seed = 0; seed < 6; seed++) {
      WindowSpec w = JoinTest.WINDOWS.get(seed % 2);
      GatedReplay<Integer> replay = JoinTest.stream(seed, w, true).replay();
      PCollection<Integer> in = p.apply("Stream " + seed, replay);
      Differential.of(
              "native join " + seed,
              replay.probed(JoinTest.nativeJoin(w, JoinTest.L)),
              "aggregate join " + seed,
              replay.probed(JoinTest.aggregateJoin(w, JoinTest.L)))
          .ignoring(Differential.Field.WINDOW)
          .assertSameOutput(in);
    }
    p.run();
  }
}
