package dev.eventide.transforms;

import dev.eventide.testing.differential.Differential;
import dev.eventide.testing.runners.OnEachRunner;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.testing.streams.EventTimeStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestPipelineExtension;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.FlatMapElements;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Filter, Map and FlatMap from the Aggregate against Beam's native transforms. */
class StatelessOperatorsTest {
  static final Duration LATENESS = Duration.millis(6);

  private static final SerializableFunction<Integer, Boolean> PREDICATE = x -> x % 3 != 1;
  private static final SerializableFunction<Integer, Integer> MAP = x -> (x * 7) % 5;
  // Fan-out 0 to 4, with repeated outputs: x copies of x % 4.
  private static final SerializableFunction<Integer, Iterable<Integer>> FLAT_MAP =
      x -> {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < x % 5; i++) {
          out.add(x % 4);
        }
        return out;
      };

  /** What a comparison expects of the input and runner. */
  enum Compare {
    /** No late data: the plain native transform, values and timestamps. */
    ON_TIME,
    /** Late data: native plus Beam's lateness rule, every field. */
    LATE,
    /** Late data on Flink: native plus Beam's lateness rule, every field but pane timing. */
    LATE_ON_FLINK
  }

  /** The three operators, each checked against its native counterpart on one input. */
  static void compareAll(
      String label, PCollection<Integer> input, Duration lateness, Compare late) {
    compare(
        input,
        "Filter" + label,
        Filter.by(PREDICATE),
        AggregateFilter.by(PREDICATE),
        lateness,
        late);
    compare(
        input,
        "Map" + label,
        MapElements.into(TypeDescriptors.integers()).via(MAP),
        AggregateMap.into(TypeDescriptors.integers()).via(MAP),
        lateness,
        late);
    compare(
        input,
        "FlatMap" + label,
        FlatMapElements.into(TypeDescriptors.integers()).via(FLAT_MAP),
        AggregateFlatMap.into(TypeDescriptors.integers()).via(FLAT_MAP),
        lateness,
        late);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static void compare(
      PCollection<Integer> input,
      String name,
      org.apache.beam.sdk.transforms.PTransform nativeTransform,
      org.apache.beam.sdk.transforms.PTransform aggregateTransform,
      Duration lateness,
      Compare late) {
    org.apache.beam.sdk.transforms.PTransform<PCollection<Integer>, PCollection<Integer>>
        candidate =
            aggregateTransform instanceof AggregateFilter
                ? ((AggregateFilter<Integer>) aggregateTransform).withAllowedLateness(lateness)
                : aggregateTransform instanceof AggregateMap
                    ? ((AggregateMap<Integer, Integer>) aggregateTransform)
                        .withAllowedLateness(lateness)
                    : ((AggregateFlatMap<Integer, Integer>) aggregateTransform)
                        .withAllowedLateness(lateness);
    if (late != Compare.ON_TIME) {
      // Values, timestamps, δ windows and pane timing against native + Beam's own lateness rule.
      Differential<Integer, Integer> differential =
          Differential.of(
              "native " + name + " with lateness",
              NativeReference.of(nativeTransform, lateness),
              "aggregate " + name,
              candidate);
      if (late == Compare.LATE_ON_FLINK) {
        differential = differential.ignoring(Differential.Field.PANE_TIMING);
      }
      differential.assertSameOutput(input);
    } else {
      // Plain native transform: same values at the same timestamps (windows and panes differ by
      // design: δ windows, output at the watermark).
      Differential.of("native " + name, nativeTransform, "aggregate " + name, candidate)
          .ignoring(Differential.Field.WINDOW, Differential.Field.PANE_TIMING)
          .assertSameOutput(input);
    }
  }

  private static void compareOnTime(TestPipeline p, long seed) {
    EventTimeStream<Integer> stream = RandomStreams.stream(1000 + seed, LATENESS, false);
    compareAll(" #" + seed, p.apply("Stream " + seed, stream.build()), LATENESS, Compare.ON_TIME);
  }

  /**
   * One stream per pipeline on the DirectRunner, whose work per bundle grows with the size of the
   * pipeline's graph (four streams in one graph took three to five times as long).
   */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4})
  @ExtendWith(TestPipelineExtension.class)
  void equalToNativeOnTimeOnTheDirectRunner(long seed, TestPipeline p) {
    compareOnTime(p, seed);
    p.run();
  }

  /** The same four streams in one pipeline on embedded Flink, where start-up dominates. */
  @OnEachRunner(TestRunner.FLINK)
  void equalToNativeOnTimeOnFlink(TestPipeline p) {
    for (long seed = 1; seed <= 4; seed++) {
      compareOnTime(p, seed);
    }
    p.run();
  }
}
