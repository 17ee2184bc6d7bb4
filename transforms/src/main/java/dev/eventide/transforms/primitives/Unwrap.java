package dev.eventide.transforms.primitives;

import dev.eventide.transforms.internal.Checks;
import java.util.Collections;
import java.util.Optional;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;

/**
 * The paper's X: unwraps each embedded tuple ⟨τ, T, c⟩ into the tuples of T, each timestamped τ,
 * with their exact multiplicity. Literally Listing 3: {@code Loop.of(A1)} followed by A2, both
 * Aggregates over δ windows keyed by all attributes.
 *
 * <pre>{@code
 * PCollection<String> words =
 *     lines
 *         .apply(Embed.flatMap((String line) -> Arrays.asList(line.split(" ")), StringUtf8Coder.of()))
 *         .apply(Unwrap.<String>create().withAllowedLateness(Duration.standardMinutes(5)));
 * }</pre>
 *
 * <ul>
 *   <li>A1 turns the copies of an E output that met in its window into position 0 of a loop, and
 *       position c into position c + 1 while c + 1 &lt; |T|; {@link Loop} feeds every output back.
 *   <li>A2 emits the item at each position.
 * </ul>
 *
 * <p>The loop numbers its firings per E output and timestamp, so that the loop of a late copy never
 * repeats, tuple for tuple, the loop of an on-time copy: the two could otherwise meet in one window
 * of A2 and be emitted once. (See {@link Embedded}.) With positions unique per E output, firing and
 * position, each window instance of A2 holds exactly one tuple, in the pane of the loop firing that
 * produced it, so A2 is rendered inside the loop's step ({@link Loop#followedByUniqueOutputsInto}):
 * the same outputs and panes as a step of its own, without another shuffle.
 *
 * <p>No limit on fan-out or on the multiplicity of identical tuples; the cost is one keyed step
 * (the loop) and one loop iteration per output tuple. Allowed lateness L applies to both
 * Aggregates, so tuples of a late E pane are unwrapped too.
 */
public final class Unwrap<T> extends PTransform<PCollection<Embedded<T>>, PCollection<T>> {
  private final Duration allowedLateness;

  private Unwrap(Duration allowedLateness) {
    this.allowedLateness = allowedLateness;
  }

  /** Returns X with allowed lateness 0. */
  public static <T> Unwrap<T> create() {
    return new Unwrap<>(Duration.ZERO);
  }

  /** Returns the same X with allowed lateness L. */
  public Unwrap<T> withAllowedLateness(Duration allowedLateness) {
    return new Unwrap<>(allowedLateness);
  }

  /**
   * Returns the loop-free, Aggregates-only rendering of X: ⌈log2 maxFanOut⌉ levels of halving (see
   * {@link UnrolledUnwrap}). The copies of one E output at one timestamp must merge into at most
   * {@code maxFanOut} items, or the pipeline fails with an error naming the bound.
   *
   * @throws IllegalArgumentException if {@code maxFanOut} is not positive
   */
  public static <T> PTransform<PCollection<Embedded<T>>, PCollection<T>> unrolled(int maxFanOut) {
    return unrolled(maxFanOut, Duration.ZERO);
  }

  /** As {@link #unrolled(int)}, with allowed lateness L. */
  public static <T> PTransform<PCollection<Embedded<T>>, PCollection<T>> unrolled(
      int maxFanOut, Duration allowedLateness) {
    return new UnrolledUnwrap<>(maxFanOut, Checks.checkLateness(allowedLateness));
  }

  @Override
  public PCollection<T> expand(PCollection<Embedded<T>> input) {
    if (!(input.getCoder() instanceof Embedded.EmbeddedCoder)) {
      throw new IllegalArgumentException(
          "Unwrap needs its input encoded with Embedded.EmbeddedCoder, but got "
              + input.getCoder());
    }
    Embedded.EmbeddedCoder<T> coder = (Embedded.EmbeddedCoder<T>) input.getCoder();
    Coder<T> itemCoder = coder.itemCoder();
    Aggregate<Embedded<T>, Embedded<T>, Embedded<T>> step =
        Aggregate.byAllAttributes(
                coder,
                (window, tuple, copies) -> {
                  if (tuple.isFromEmbed()) {
                    Embedded<T> first = tuple.firstOf(copies.size());
                    TransformMetrics.unwrappedListSize().update(first.size());
                    return Optional.of(first);
                  }
                  // Positions are unique per loop, so a looped tuple never meets a copy.
                  return tuple.next();
                },
                coder)
            .withAllowedLateness(allowedLateness);
    Aggregate<Embedded<T>, Embedded<T>, T> emit =
        Aggregate.byAllAttributesEmittingOne(
                coder,
                (window, tuple, copies) -> Collections.singletonList(tuple.item()),
                itemCoder)
            .withAllowedLateness(allowedLateness);
    // A2 runs inside the loop's step: positions are unique per E output, firing and position.
    return input.apply(
        "A1 (Loop) then A2",
        Loop.of(step).markingFirings(Embedded::inFiring).followedByUniqueOutputsInto(emit));
  }
}
