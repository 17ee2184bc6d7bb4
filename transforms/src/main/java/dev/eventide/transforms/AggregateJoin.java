package dev.eventide.transforms;

import dev.eventide.transforms.internal.Checks;
import dev.eventide.transforms.primitives.Aggregate;
import dev.eventide.transforms.primitives.Embedded;
import dev.eventide.transforms.primitives.Unwrap;
import dev.eventide.transforms.primitives.WindowSpec;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PValue;
import org.apache.beam.sdk.values.TupleTag;
import org.joda.time.Duration;

/**
 * The windowed Join J(WA, WS, S1, S2, f_K¹, f_K², f_P) from the windowed Aggregate alone: E_J
 * (Listing 2: A1 and A2 wrap each side's tuples, P1 flattens them, A3 pairs them per key and window
 * instance) then X. Applied to the left input S1, with the right input S2 given to {@link #with}:
 * for every window instance γ and key, every pair (t1, t2) of a left and a right tuple of γ with
 * {@code f_K¹(t1) = f_K²(t2)} and {@code f_P(t1, t2)} comes out once per pair of copies, as {@code
 * KV(t1, t2)} timestamped {@code γ.l + WS − δ}.
 *
 * <pre>{@code
 * PCollection<KV<Click, Impression>> pairs =
 *     clicks.apply(
 *         "ClicksWithImpressions",
 *         AggregateJoin.with(impressions)
 *             .within(WindowSpec.tumbling(Duration.standardMinutes(1)))
 *             .keyedBy(Click::adId, Impression::adId, StringUtf8Coder.of())
 *             .withAllowedLateness(Duration.standardMinutes(5))
 *             .where((click, impression) -> click.time() >= impression.time()));
 * }</pre>
 *
 * <p>The left tuples' type is inferred from the left key function: a method reference of a
 * non-generic type ({@code Click::adId}) or a lambda with a typed parameter ({@code (KV<String,
 * Long> e) -> e.getKey()}); Java cannot infer it from {@code KV::getKey}.
 *
 * <p>Equal to Beam's windowed join (the same windows, {@code CoGroupByKey} and the predicate) with
 * the differences of {@link AggregateFilter}: late panes are discarding, so a late tuple pairs only
 * with the tuples of its own late pane, as in the native join with discarding panes; a tuple is
 * dropped once every window instance it falls in is more than L late. (A1 and A2 keep tuples for L
 * + WS, the latest a window instance containing them can still accept them.) Pairs of a late pane
 * come out in late panes. Cost: four keyed steps in a row (A1 or A2, A3, X's loop and emit), one
 * loop iteration per output pair.
 *
 * <p>{@link Keyed#embed} gives E_J alone, for another X ({@link Unwrap#unrolled(int, Duration)});
 * {@link Keyed#whereMultiOutput} is the relaxed rendering whose A3 is an A+ emitting the pairs.
 *
 * @param <L> the left tuples
 * @param <R> the right tuples
 * @param <K> the join key
 */
public final class AggregateJoin<L, R, K>
    extends PTransform<PCollection<L>, PCollection<KV<L, R>>> {
  // A transform is serializable, a PCollection is not: the right input stays with the graph.
  private final transient PCollection<R> right;
  private final Plan<L, R, K> plan;
  private final boolean multiOutput;

  private AggregateJoin(PCollection<R> right, Plan<L, R, K> plan, boolean multiOutput) {
    this.right = right;
    this.plan = plan;
    this.multiOutput = multiOutput;
  }

  /** The match predicate f_P. */
  @FunctionalInterface
  public interface Predicate<L, R> extends Serializable {
    boolean matches(L left, R right);
  }

  /** A join of the input it is applied to (the left) with {@code right}, to be configured. */
  public static <R> Sides<R> with(PCollection<R> right) {
    return new Sides<>(Objects.requireNonNull(right, "the right input"));
  }

  /** The right input of a join. */
  public static final class Sides<R> {
    private final PCollection<R> right;

    private Sides(PCollection<R> right) {
      this.right = right;
    }

    /** Joins within the window instances of {@code windows} (WA, WS). */
    public Windowed<R> within(WindowSpec windows) {
      return new Windowed<>(right, Objects.requireNonNull(windows, "windows"));
    }
  }

  /** A join with its windows. */
  public static final class Windowed<R> {
    private final PCollection<R> right;
    private final WindowSpec windows;

    private Windowed(PCollection<R> right, WindowSpec windows) {
      this.right = right;
      this.windows = windows;
    }

    /**
     * Pairs tuples whose keys, f_K¹ on the left and f_K² on the right, are equal under {@code
     * keyCoder}, which must be deterministic.
     */
    public <L, K> Keyed<L, R, K> keyedBy(
        SerializableFunction<L, K> leftKey,
        SerializableFunction<R, K> rightKey,
        Coder<K> keyCoder) {
      Objects.requireNonNull(leftKey, "the left key function");
      Objects.requireNonNull(rightKey, "the right key function");
      Checks.requireDeterministic(keyCoder, "the join key coder");
      return new Keyed<>(
          right, new Plan<>(windows, leftKey, rightKey, keyCoder, Duration.ZERO, (l, r) -> true));
    }
  }

  /** A join with its windows and keys. */
  public static final class Keyed<L, R, K> {
    private final PCollection<R> right;
    private final Plan<L, R, K> plan;

    private Keyed(PCollection<R> right, Plan<L, R, K> plan) {
      this.right = right;
      this.plan = plan;
    }

    /** Returns the same join with allowed lateness L (≥ 0). */
    public Keyed<L, R, K> withAllowedLateness(Duration allowedLateness) {
      return new Keyed<>(right, plan.withAllowedLateness(Checks.checkLateness(allowedLateness)));
    }

    /** The join with match predicate f_P: E_J then X. */
    public AggregateJoin<L, R, K> where(Predicate<L, R> predicate) {
      return new AggregateJoin<>(right, plan.withPredicate(checked(predicate)), false);
    }

    /**
     * The relaxed rendering: A3 is an A+ that emits every matching pair itself, so no X is needed.
     * The paper keeps it for comparison; it is not built from A alone.
     */
    public AggregateJoin<L, R, K> whereMultiOutput(Predicate<L, R> predicate) {
      return new AggregateJoin<>(right, plan.withPredicate(checked(predicate)), true);
    }

    /**
     * E_J alone (Listing 2): per key and window instance, one embedded tuple holding every matching
     * pair, to be unwrapped by {@link Unwrap#create()} (which {@link #where} uses) or {@link
     * Unwrap#unrolled(int, Duration)}.
     */
    public PTransform<PCollection<L>, PCollection<Embedded<KV<L, R>>>> embed(
        Predicate<L, R> predicate) {
      return new Embedding<>(right, plan.withPredicate(checked(predicate)));
    }

    private static <L, R> Predicate<L, R> checked(Predicate<L, R> predicate) {
      return Objects.requireNonNull(predicate, "the match predicate");
    }
  }

  /** E_J alone, applied to the left input. */
  private static final class Embedding<L, R, K>
      extends PTransform<PCollection<L>, PCollection<Embedded<KV<L, R>>>> {
    private final transient PCollection<R> right;
    private final Plan<L, R, K> plan;

    Embedding(PCollection<R> right, Plan<L, R, K> plan) {
      this.right = right;
      this.plan = plan;
    }

    @Override
    public PCollection<Embedded<KV<L, R>>> expand(PCollection<L> left) {
      return plan.embedPairs(plan.inputs(left, right));
    }

    @Override
    public Map<TupleTag<?>, PValue> getAdditionalInputs() {
      return Map.of(plan.rightTag, right);
    }

    @Override
    public void populateDisplayData(DisplayData.Builder builder) {
      super.populateDisplayData(builder);
      plan.populateDisplayData(builder);
    }
  }

  @Override
  public PCollection<KV<L, R>> expand(PCollection<L> left) {
    PCollectionTuple inputs = plan.inputs(left, right);
    return multiOutput ? plan.multiOutput(inputs) : plan.unwrapped(inputs);
  }

  /** The right input, which the join reads beside the one it is applied to. */
  @Override
  public Map<TupleTag<?>, PValue> getAdditionalInputs() {
    return Map.of(plan.rightTag, right);
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    plan.populateDisplayData(builder);
    builder.add(
        DisplayData.item("rendering", multiOutput ? "A+ emitting the pairs" : "E_J then X")
            .withLabel("Rendering"));
  }

  /** What a join does to the tuple of its two inputs, whichever rendering applies it. */
  private static final class Plan<L, R, K> implements Serializable {
    final TupleTag<L> leftTag = new TupleTag<>("left");
    final TupleTag<R> rightTag = new TupleTag<>("right");
    private final WindowSpec windows;
    private final SerializableFunction<L, K> leftKey;
    private final SerializableFunction<R, K> rightKey;
    private final Coder<K> keyCoder;
    private final Duration allowedLateness;
    private final Predicate<L, R> predicate;

    Plan(
        WindowSpec windows,
        SerializableFunction<L, K> leftKey,
        SerializableFunction<R, K> rightKey,
        Coder<K> keyCoder,
        Duration allowedLateness,
        Predicate<L, R> predicate) {
      this.windows = windows;
      this.leftKey = leftKey;
      this.rightKey = rightKey;
      this.keyCoder = keyCoder;
      this.allowedLateness = allowedLateness;
      this.predicate = predicate;
    }

    Plan<L, R, K> withAllowedLateness(Duration lateness) {
      return new Plan<>(windows, leftKey, rightKey, keyCoder, lateness, predicate);
    }

    Plan<L, R, K> withPredicate(Predicate<L, R> p) {
      return new Plan<>(windows, leftKey, rightKey, keyCoder, allowedLateness, p);
    }

    /** E_J then X. */
    PCollection<KV<L, R>> unwrapped(PCollectionTuple inputs) {
      return embedPairs(inputs)
          .apply("X", Unwrap.<KV<L, R>>create().withAllowedLateness(allowedLateness));
    }

    /** The tuple of the two inputs, both of one pipeline. */
    PCollectionTuple inputs(PCollection<L> left, PCollection<R> right) {
      if (left.getPipeline() != right.getPipeline()) {
        throw new IllegalArgumentException(
            "the join's right input "
                + right
                + " belongs to another pipeline than its left input "
                + left);
      }
      return PCollectionTuple.of(leftTag, left).and(rightTag, right);
    }

    /** A1, A2, P1, then A3 as an A+ emitting the pairs. */
    PCollection<KV<L, R>> multiOutput(PCollectionTuple inputs) {
      PCollection<JoinSides<L, R>> sides = wrapSides(inputs);
      Predicate<L, R> fp = predicate;
      return sides.apply(
          "A3+ (pairs per key and window)",
          Aggregate.within(windows)
              .keyedBy(keyOfSides())
              .withKeyCoder(keyCoder)
              .<KV<L, R>>viaMultiOutput((window, key, tuples) -> pairs(tuples, fp))
              .withOutputCoder(pairCoder(inputs))
              .withAllowedLateness(allowedLateness));
    }

    private KvCoder<L, R> pairCoder(PCollectionTuple inputs) {
      return KvCoder.of(inputs.get(leftTag).getCoder(), inputs.get(rightTag).getCoder());
    }

    /** f_K of A3: f_K¹ of the left tuple, or f_K² of the right one. */
    private SerializableFunction<JoinSides<L, R>, K> keyOfSides() {
      SerializableFunction<L, K> fk1 = leftKey;
      SerializableFunction<R, K> fk2 = rightKey;
      return sides ->
          sides.lefts.isEmpty() ? fk2.apply(sides.rights.get(0)) : fk1.apply(sides.lefts.get(0));
    }

    /** A1 and A2 wrap each side's tuples; P1 flattens them. */
    private PCollection<JoinSides<L, R>> wrapSides(PCollectionTuple inputs) {
      PCollection<L> left = inputs.get(leftTag);
      PCollection<R> right = inputs.get(rightTag);
      Checks.checkTupleCoder(left.getCoder(), "the left");
      Checks.checkTupleCoder(right.getCoder(), "the right");
      JoinSides.JoinSidesCoder<L, R> sidesCoder =
          new JoinSides.JoinSidesCoder<>(left.getCoder(), right.getCoder());
      // A tuple at τ may still pair in a window instance ending as late as τ + WS, so the wrapping
      // δ-window Aggregates keep it WS longer; A3 then applies L to the join's own windows.
      Duration wrapLateness = allowedLateness.plus(windows.size());

      PCollection<JoinSides<L, R>> lefts =
          left.apply(
              "A1 (wrap left)",
              Aggregate.<L, JoinSides<L, R>>byAllAttributes(
                      (w, t, copies) -> Optional.of(new JoinSides<L, R>(copies, List.of())))
                  .withOutputCoder(sidesCoder)
                  .withAllowedLateness(wrapLateness)
                  .countingLateness());
      PCollection<JoinSides<L, R>> rights =
          right.apply(
              "A2 (wrap right)",
              Aggregate.<R, JoinSides<L, R>>byAllAttributes(
                      (w, t, copies) -> Optional.of(new JoinSides<L, R>(List.of(), copies)))
                  .withOutputCoder(sidesCoder)
                  .withAllowedLateness(wrapLateness)
                  .countingLateness());
      return PCollectionList.of(lefts).and(rights).apply("P1 (flatten)", Flatten.pCollections());
    }

    /** E_J: A1, A2, P1, then A3 embedding the pairs of each key and window instance. */
    PCollection<Embedded<KV<L, R>>> embedPairs(PCollectionTuple inputs) {
      Predicate<L, R> fp = predicate;
      return wrapSides(inputs)
          .apply(
              "A3 (pair per key and window)",
              Aggregate.within(windows)
                  .keyedBy(keyOfSides())
                  .withKeyCoder(keyCoder)
                  .<Embedded<KV<L, R>>>via(
                      (window, key, tuples) -> {
                        List<KV<L, R>> pairs = pairs(tuples, fp);
                        return pairs.isEmpty() ? Optional.empty() : Optional.of(Embedded.of(pairs));
                      })
                  .withOutputCoder(Embedded.EmbeddedCoder.of(pairCoder(inputs)))
                  .withAllowedLateness(allowedLateness));
    }

    /** Every matching pair of a left and a right tuple of one key and window instance. */
    private static <L, R> List<KV<L, R>> pairs(List<JoinSides<L, R>> tuples, Predicate<L, R> fp) {
      List<L> seenLefts = new ArrayList<>();
      List<R> seenRights = new ArrayList<>();
      List<KV<L, R>> pairs = new ArrayList<>();
      for (JoinSides<L, R> sides : tuples) {
        for (L l : sides.lefts) {
          for (R r : seenRights) {
            if (fp.matches(l, r)) {
              pairs.add(KV.of(l, r));
            }
          }
          seenLefts.add(l);
        }
        for (R r : sides.rights) {
          for (L l : seenLefts) {
            if (fp.matches(l, r)) {
              pairs.add(KV.of(l, r));
            }
          }
          seenRights.add(r);
        }
      }
      return pairs;
    }

    void populateDisplayData(DisplayData.Builder builder) {
      builder
          .add(DisplayData.item("windowAdvance", windows.advance()).withLabel("WA"))
          .add(DisplayData.item("windowSize", windows.size()).withLabel("WS"))
          .add(DisplayData.item("allowedLateness", allowedLateness).withLabel("L"));
    }
  }
}
