package dev.eventide.transforms;

import dev.eventide.testing.differential.Differential;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.transforms.primitives.WindowSpec;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestPipelineExtension;
import org.apache.beam.sdk.values.PCollection;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random late streams on the DirectRunner (the runner that honours TestStream watermarks exactly):
 * the Aggregate-built join equals Beam's windowed join with the same allowed lateness on every
 * field but the window (X emits in 1 ms windows), pane timing included. Tumbling and sliding
 * windows alternate. Four streams per pipeline: the DirectRunner slows down sharply with the size
 * of a pipeline's graph.
 */
@ExtendWith(TestPipelineExtension.class)
class JoinDirectTest {
  private static final int STREAMS_PER_PIPELINE = 4;

  @ParameterizedTest(name = "streams {0}")
  @ValueSource(ints = {0, 1, 2, 3})
  void equalsTheNativeWindowedJoinWithLateData(int batch, TestPipeline p) {
    TestRunner.skipImmutabilityCheck(p); // checked by the smaller suites on the same DoFns
    for (int seed = batch * STREAMS_PER_PIPELINE;
        seed < (batch + 1) * STREAMS_PER_PIPELINE;
        seed++) {
      WindowSpec w = JoinTest.WINDOWS.get(seed % 2);
      PCollection<Integer> in = p.apply("Stream " + seed, JoinTest.stream(seed, w, true).build());
      Differential.of(
              "native join " + seed,
              JoinTest.nativeJoin(w, JoinTest.L),
              "aggregate join " + seed,
              JoinTest.aggregateJoin(w, JoinTest.L))
          .ignoring(Differential.Field.WINDOW)
          .assertSameOutput(in);
    }
    p.run();
  }
}
