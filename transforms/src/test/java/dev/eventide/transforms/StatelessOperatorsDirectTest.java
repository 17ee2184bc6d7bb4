package dev.eventide.transforms;

import dev.eventide.testing.differential.Seeds;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.testing.streams.EventTimeStream;
import java.util.stream.LongStream;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestPipelineExtension;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hundreds of seeded random streams with duplicates, out-of-order events, empty stretches and
 * events late within and beyond the allowed lateness, on the DirectRunner (the runner that honours
 * TestStream watermarks exactly): Filter, Map and FlatMap from the Aggregate equal Beam's native
 * transforms plus Beam's own lateness rule, on every field including pane timing.
 */
@ExtendWith(TestPipelineExtension.class)
class StatelessOperatorsDirectTest {

  /**
   * 60 random streams, each compared for Filter, Map and FlatMap: 180 cases. (One stream per
   * pipeline: the DirectRunner slows down sharply with the size of a pipeline's graph.)
   */
  static LongStream seeds() {
    return Seeds.range(0, 60);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void equalToNativeWithLateData(long seed, TestPipeline p) {
    TestRunner.skipImmutabilityCheck(p); // checked by the smaller suites on the same DoFns
    EventTimeStream<Integer> stream =
        RandomStreams.stream(seed, StatelessOperatorsTest.LATENESS, true);
    StatelessOperatorsTest.compareAll(
        "",
        p.apply(stream.build()),
        StatelessOperatorsTest.LATENESS,
        StatelessOperatorsTest.Compare.LATE);
    p.run();
  }
}
