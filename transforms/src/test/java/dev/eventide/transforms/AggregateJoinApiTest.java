package dev.eventide.transforms;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsInAnyOrder;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.eventide.transforms.primitives.Unwrap;
import dev.eventide.transforms.primitives.WindowSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.DoubleCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PValue;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link AggregateJoin} as a user applies it: a transform of its left input, named by the user,
 * that reads its right input as a declared input. (What it computes is {@code JoinTest}'s.)
 */
class AggregateJoinApiTest {
  private static final WindowSpec MINUTES =
      WindowSpec.sliding(Duration.standardMinutes(10), Duration.standardMinutes(1));

  private static Pipeline pipeline() {
    return Pipeline.create(PipelineOptionsFactory.create());
  }

  private static AggregateJoin<KV<String, Integer>, KV<String, Integer>, String> byKey(
      PCollection<KV<String, Integer>> right) {
    return AggregateJoin.with(right)
        .within(MINUTES)
        .keyedBy((KV<String, Integer> l) -> l.getKey(), KV::getKey, StringUtf8Coder.of())
        .withAllowedLateness(Duration.standardMinutes(5))
        .where((l, r) -> l.getValue() < r.getValue());
  }

  @Test
  void theJoinIsOneStepNamedByTheUserThatReadsBothInputs() {
    Pipeline p = pipeline();
    PCollection<KV<String, Integer>> left = p.apply("Left", Create.of(KV.of("a", 1)));
    PCollection<KV<String, Integer>> right = p.apply("Right", Create.of(KV.of("a", 2)));
    PCollection<KV<KV<String, Integer>, KV<String, Integer>>> pairs =
        left.apply("PairsPerKey", byKey(right));

    List<String> steps = new ArrayList<>();
    List<PValue> joinInputs = new ArrayList<>();
    p.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          @Override
          public CompositeBehavior enterCompositeTransform(TransformHierarchy.Node node) {
            steps.add(node.getFullName());
            if (node.getFullName().equals("PairsPerKey")) {
              joinInputs.addAll(node.getInputs().values());
            }
            return CompositeBehavior.ENTER_TRANSFORM;
          }
        });
    assertThat(steps, hasItem("PairsPerKey"));
    assertThat(steps, hasItem("PairsPerKey/A1 (wrap left)"));
    assertThat(steps, hasItem("PairsPerKey/A2 (wrap right)"));
    assertThat(steps, hasItem("PairsPerKey/X"));
    assertThat(joinInputs, containsInAnyOrder(left, right));
    assertThat(pairs.getName(), startsWith("PairsPerKey/X/"));
  }

  @Test
  void theOtherRenderingsAreTransformsOfTheLeftInputToo() {
    Pipeline p = pipeline();
    PCollection<Integer> left = p.apply("Left", Create.of(2));
    PCollection<Integer> right = p.apply("Right", Create.of(3));
    AggregateJoin.Keyed<Integer, Integer, Integer> join =
        AggregateJoin.with(right)
            .within(MINUTES)
            .keyedBy((Integer x) -> x % 2, (Integer x) -> 1 - x % 2, VarIntCoder.of());
    left.apply("MultiOutput", join.whereMultiOutput((l, r) -> true));
    left.apply("Embedded", join.embed((l, r) -> true)).apply("X unrolled", Unwrap.unrolled(4));
    List<String> steps = new ArrayList<>();
    p.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          @Override
          public CompositeBehavior enterCompositeTransform(TransformHierarchy.Node node) {
            steps.add(node.getFullName());
            return CompositeBehavior.ENTER_TRANSFORM;
          }
        });
    assertThat(steps, hasItem("MultiOutput/A3+ (pairs per key and window)"));
    assertThat(steps, hasItem("Embedded/A3 (pair per key and window)"));
  }

  @Test
  void displayDataNamesThePapersParametersAndTheRendering() {
    PCollection<KV<String, Integer>> right = pipeline().apply(Create.of(KV.of("a", 2)));
    List<String> items =
        DisplayData.from(byKey(right)).items().stream()
            .map(item -> item.getKey() + "/" + item.getLabel() + "=" + item.getValue())
            .collect(Collectors.toList());
    assertThat(items, hasItem("windowAdvance/WA=60000"));
    assertThat(items, hasItem("windowSize/WS=600000"));
    assertThat(items, hasItem("allowedLateness/L=300000"));
    assertThat(items, hasItem("rendering/Rendering=E_J then X"));
  }

  @Test
  void aRightInputOfAnotherPipelineIsRefusedByName() {
    PCollection<KV<String, Integer>> right = pipeline().apply("Right", Create.of(KV.of("a", 2)));
    PCollection<KV<String, Integer>> left = pipeline().apply("Left", Create.of(KV.of("a", 1)));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> left.apply("Join", byKey(right)));
    assertThat(e.getMessage(), containsString("belongs to another pipeline"));
    assertThat(e.getMessage(), containsString("Right"));
  }

  @Test
  void missingPartsAreNamed() {
    NullPointerException noRight =
        assertThrows(NullPointerException.class, () -> AggregateJoin.with(null));
    assertEquals("the right input", noRight.getMessage());
    PCollection<Integer> right = pipeline().apply(Create.of(1));
    NullPointerException noPredicate =
        assertThrows(
            NullPointerException.class,
            () ->
                AggregateJoin.with(right)
                    .within(MINUTES)
                    .keyedBy((Integer x) -> x, (Integer x) -> x, VarIntCoder.of())
                    .where(null));
    assertEquals("the match predicate", noPredicate.getMessage());
    IllegalArgumentException nonDeterministicKey =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                AggregateJoin.with(right)
                    .within(MINUTES)
                    .keyedBy(
                        (Integer x) -> (double) x, (Integer x) -> (double) x, DoubleCoder.of()));
    assertThat(nonDeterministicKey.getMessage(), containsString("the join key coder"));
  }
}
