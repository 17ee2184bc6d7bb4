package dev.eventide.transforms.primitives;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import dev.eventide.testing.differential.Differential;
import dev.eventide.testing.runners.OnEachRunner;
import dev.eventide.testing.runners.PipelineFailures;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.transforms.RandomStreams;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.TreeSet;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.FlatMapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/** The loop-free X against the loop and against Beam's native FlatMap. */
class UnrolledUnwrapTest {
  // Fan-out 0 to 4 with repeated outputs, as in StatelessOperatorsTest.
  private static final SerializableFunction<Integer, Iterable<Integer>> FLAT_MAP =
      x -> Collections.nCopies(x % 5, x % 4);

  private static PTransform<PCollection<Integer>, PCollection<Integer>> flatMap(
      PTransform<PCollection<Embedded<Integer>>, PCollection<Integer>> unwrap) {
    return new PTransform<>() {
      @Override
      public PCollection<Integer> expand(PCollection<Integer> in) {
        return in.apply("E_FM", Embed.flatMap(FLAT_MAP, VarIntCoder.of())).apply("X", unwrap);
      }
    };
  }

  @OnEachRunner
  void equalsTheLoopAndNativeFlatMap(TestPipeline p) {
    TestRunner.skipImmutabilityCheck(p); // checked by the smaller suites on the same DoFns
    for (long seed = 0; seed < 2; seed++) {
      PCollection<Integer> in =
          p.apply("Stream " + seed, RandomStreams.stream(500 + seed, Duration.ZERO, false).build());
      Differential.of(
              "loop X " + seed,
              flatMap(Unwrap.create()),
              "unrolled X " + seed,
              flatMap(Unwrap.unrolled(64)))
          .assertSameOutput(in);
      Differential.of(
              "native FlatMap " + seed,
              FlatMapElements.into(TypeDescriptors.integers()).via(FLAT_MAP),
              "unrolled FlatMap " + seed,
              flatMap(Unwrap.unrolled(64)))
          .ignoring(Differential.Field.WINDOW, Differential.Field.PANE_TIMING)
          .assertSameOutput(in);
    }
    p.run();
  }

  private static void assertMultiplicity(TestPipeline p, int copies) {
    List<TimestampedValue<Integer>> events =
        new ArrayList<>(Collections.nCopies(copies, TimestampedValue.of(6, new Instant(9))));
    PCollection<Long> count =
        p.apply(Create.timestamped(events))
            .apply(Embed.flatMap((Integer x) -> List.of(x), VarIntCoder.of()))
            .apply(Unwrap.unrolled(copies))
            .apply(Combine.globally(Count.<Integer>combineFn()).withoutDefaults());
    PAssert.that(count).containsInAnyOrder((long) copies);
    p.run();
  }

  /** 14 levels of halving on Flink. */
  @OnEachRunner(TestRunner.FLINK)
  void tenThousandIdenticalTuplesKeepTheirMultiplicity(TestPipeline p) {
    assertMultiplicity(p, 10_000);
  }

  /**
   * Eight levels on the DirectRunner, which checks every element's encoding: the size is proven on
   * Flink above (1,000 copies took 14 s here).
   */
  @OnEachRunner(TestRunner.DIRECT)
  void identicalTuplesKeepTheirMultiplicity(TestPipeline p) {
    assertMultiplicity(p, 256);
  }

  @OnEachRunner(TestRunner.DIRECT)
  void aMergedListOverTheBoundFailsNamingIt(TestPipeline p) {
    p.apply(Create.timestamped(Collections.nCopies(9, TimestampedValue.of(1, new Instant(5)))))
        .apply(Embed.flatMap((Integer x) -> List.of(x, x), VarIntCoder.of()))
        .apply(Unwrap.unrolled(16));
    String messages = PipelineFailures.messagesOfFailedRun(p);
    assertThat(messages, containsString("embedded at 1970-01-01T00:00:00.005Z"));
    assertThat(messages, containsString("a list of 18 items, more than maxFanOut = 16"));
    assertThat(messages, containsString("Unwrap.unrolled(n) for n >= 18"));
  }

  @Test
  void expandsIntoLog2LevelsOfTwoAggregates() {
    for (int bound : new int[] {1, 2, 5, 64, 1000}) {
      Pipeline p = Pipeline.create(PipelineOptionsFactory.create());
      p.apply(Create.of(1))
          .apply(Embed.flatMap((Integer x) -> List.of(x), VarIntCoder.of()))
          .apply(Unwrap.unrolled(bound));
      TreeSet<String> halves = new TreeSet<>();
      p.traverseTopologically(
          new Pipeline.PipelineVisitor.Defaults() {
            @Override
            public CompositeBehavior enterCompositeTransform(TransformHierarchy.Node node) {
              String name = node.getFullName();
              String last = name.substring(name.lastIndexOf('/') + 1);
              if (last.endsWith("halves")) {
                halves.add(last);
              }
              return CompositeBehavior.ENTER_TRANSFORM;
            }
          });
      int levels = (int) Math.ceil(Math.log(bound) / Math.log(2));
      assertThat("N = " + bound, halves.size(), equalTo(2 * levels));
    }
  }
}
