package dev.eventide.transforms.primitives;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Optional;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.DoubleCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestPipelineExtension;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * How a user builds an {@link Aggregate}: coders from the pipeline's registry where the functions'
 * classes tell their types, by name where they do not, and a message naming the input and the
 * method to call when one is missing. (What an Aggregate computes is {@code AggregateTest}'s.)
 */
@ExtendWith(TestPipelineExtension.class)
class AggregateBuilderTest {
  private static final WindowSpec TEN_MS = WindowSpec.tumbling(Duration.millis(10));

  /** f_K as a class: its key type, String, is in its class, so Beam can choose the coder. */
  private static final class FirstLetter implements SerializableFunction<String, String> {
    @Override
    public String apply(String word) {
      return word.substring(0, 1);
    }
  }

  /** f_O as a class: its output type, KV&lt;String, Long&gt;, is in its class. */
  private static final class CountWords
      implements Aggregate.WindowFunction<String, String, KV<String, Long>> {
    @Override
    public Optional<KV<String, Long>> apply(
        IntervalWindow window, String letter, List<String> words) {
      return Optional.of(KV.of(letter, (long) words.size()));
    }
  }

  private static PCollection<String> words(Pipeline p) {
    return p.apply(
        Create.timestamped(
            TimestampedValue.of("apple", new Instant(1)),
            TimestampedValue.of("avocado", new Instant(4)),
            TimestampedValue.of("banana", new Instant(6)),
            TimestampedValue.of("apricot", new Instant(12))));
  }

  @Test
  void codersComeFromTheRegistryWhenTheFunctionsAreClasses(TestPipeline p) {
    PCollection<KV<String, Long>> counts =
        words(p)
            .apply(
                "CountPerLetter",
                Aggregate.within(TEN_MS).keyedBy(new FirstLetter()).via(new CountWords()));
    assertEquals(KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of()), counts.getCoder());
    PAssert.that(counts).containsInAnyOrder(KV.of("a", 2L), KV.of("b", 1L), KV.of("a", 1L));
    p.run();
  }

  @Test
  void lambdasTakeTheirCodersByName(TestPipeline p) {
    PCollection<KV<String, Long>> counts =
        words(p)
            .apply(
                Aggregate.within(TEN_MS)
                    .keyedBy((String word) -> word.substring(0, 1))
                    .withKeyCoder(StringUtf8Coder.of())
                    .via((window, letter, words) -> Optional.of(KV.of(letter, (long) words.size())))
                    .withOutputCoder(KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of())));
    PAssert.that(counts).containsInAnyOrder(KV.of("a", 2L), KV.of("b", 1L), KV.of("a", 1L));
    p.run();
  }

  @Test
  void aMissingKeyCoderNamesTheStepAndTheMethodToCall() {
    Pipeline p = Pipeline.create(PipelineOptionsFactory.create());
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                words(p)
                    .apply(
                        "CountPerLetter",
                        Aggregate.within(TEN_MS)
                            .keyedBy((String word) -> word.substring(0, 1))
                            .via(new CountWords())));
    assertThat(
        e.getMessage(),
        allOf(
            containsString("The Aggregate applied to Create.TimestampedValues"),
            containsString("its keys"),
            containsString("Aggregate.Keyed#withKeyCoder")));
  }

  @Test
  void aMissingOutputCoderNamesTheStepAndTheMethodToCall() {
    Pipeline p = Pipeline.create(PipelineOptionsFactory.create());
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                words(p)
                    .apply(
                        "CountPerLetter",
                        Aggregate.within(TEN_MS)
                            .keyedBy(new FirstLetter())
                            .via((window, letter, words) -> Optional.of(words.size()))));
    assertThat(
        e.getMessage(),
        allOf(
            containsString("The Aggregate applied to Create.TimestampedValues"),
            containsString("its outputs"),
            containsString("Aggregate#withOutputCoder")));
  }

  @Test
  void keysMustEncodeDeterministicallyGivenOrInferred() {
    IllegalArgumentException given =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                Aggregate.within(TEN_MS)
                    .keyedBy((String word) -> (double) word.length())
                    .withKeyCoder(DoubleCoder.of()));
    assertThat(given.getMessage(), containsString("f_K's key coder"));

    Pipeline p = Pipeline.create(PipelineOptionsFactory.create());
    SerializableFunction<String, Double> length =
        new SerializableFunction<String, Double>() {
          @Override
          public Double apply(String word) {
            return (double) word.length();
          }
        };
    IllegalArgumentException inferred =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                words(p)
                    .apply(
                        Aggregate.within(TEN_MS)
                            .keyedBy(length)
                            .via((window, key, words) -> Optional.of(words.size()))
                            .withOutputCoder(VarIntCoder.of())));
    assertThat(inferred.getMessage(), containsString("DoubleCoder"));
  }

  @Test
  void byAllAttributesTakesItsTupleCoderFromTheInput(TestPipeline p) {
    Aggregate<Long, Long, Long> halve =
        Aggregate.byAllAttributes(
                (IntervalWindow window, Long x, List<Long> copies) ->
                    x % 2 == 0 ? Optional.of(x / 2) : Optional.<Long>empty())
            .withOutputCoder(VarLongCoder.of());
    PCollection<Long> halvings =
        p.apply(Create.of(12L, 5L).withCoder(VarLongCoder.of())).apply(Loop.of(halve));
    PAssert.that(halvings).containsInAnyOrder(6L, 3L);
    p.run();
  }
}
