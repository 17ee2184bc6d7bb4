package dev.eventide.transforms.primitives;

import java.util.Collections;
import java.util.Optional;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.joda.time.Duration;

/**
 * X without loops, in Aggregates only: log-depth halving. The copies of an E output that meet in
 * the first step are merged into one list of {@code |T| × copies} items, which must not exceed
 * {@code maxFanOut} (N); then each of ⌈log2 N⌉ levels reads the previous level twice (P2): one
 * Aggregate emits the left half of every slice, another the right half, and a last Aggregate emits
 * the item of every one-item slice. A slice is a range of its root list, so slices of different
 * roots, or of one root, never coincide.
 *
 * <p>Cost: 2⌈log2 N⌉ + 2 keyed steps whatever the input, and every slice carries its root's items.
 * It cross-checks {@link Unwrap}'s loop in tests and shows what purity costs in benchmarks. With
 * late data, a late copy of an E output that matches an on-time copy in count would meet it in the
 * first level's window; that is detected and fails the pipeline rather than losing tuples.
 */
final class UnrolledUnwrap<T> extends PTransform<PCollection<Embedded<T>>, PCollection<T>> {
  private final int maxFanOut;
  private final Duration allowedLateness;

  UnrolledUnwrap(int maxFanOut, Duration allowedLateness) {
    if (maxFanOut < 1) {
      throw new IllegalArgumentException("maxFanOut must be >= 1, but was " + maxFanOut);
    }
    this.maxFanOut = maxFanOut;
    this.allowedLateness = allowedLateness;
  }

  /** ⌈log2 N⌉: the number of halving levels. */
  static int levels(int maxFanOut) {
    return maxFanOut <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(maxFanOut - 1);
  }

  @Override
  public PCollection<T> expand(PCollection<Embedded<T>> input) {
    Embedded.EmbeddedCoder<T> coder = (Embedded.EmbeddedCoder<T>) input.getCoder();
    Coder<T> itemCoder = coder.itemCoder();
    int bound = maxFanOut;
    PCollection<Embedded<T>> slices =
        input.apply(
            "Merge copies (bound " + bound + ")",
            step(
                coder,
                (window, e, copies) -> {
                  if (!e.isFromEmbed()) {
                    throw new IllegalStateException(
                        "Unwrap.unrolled met a slice twice at "
                            + window.maxTimestamp()
                            + ", which would lose tuples: "
                            + e);
                  }
                  Embedded<T> root = e.firstOf(copies.size()).asSlice();
                  if (root.size() > bound) {
                    throw new IllegalStateException(
                        String.format(
                            "Unwrap.unrolled: the identical tuples embedded at %s merge into a"
                                + " list of %d items, more than maxFanOut = %d; raise the bound"
                                + " with Unwrap.unrolled(n) for n >= %d, or use Unwrap.create(),"
                                + " which has no limit",
                            window.maxTimestamp(), root.size(), bound, root.size()));
                  }
                  return Optional.of(root);
                }));
    for (int level = 1; level <= levels(bound); level++) {
      PCollection<Embedded<T>> left =
          slices.apply(
              "Level " + level + " left halves", step(coder, (w, s, c) -> once(s, c).leftHalf()));
      PCollection<Embedded<T>> right =
          slices.apply(
              "Level " + level + " right halves", step(coder, (w, s, c) -> once(s, c).rightHalf()));
      slices = PCollectionList.of(left).and(right).apply("Level " + level, Flatten.pCollections());
    }
    return slices.apply(
        "Emit items",
        Aggregate.byAllAttributesEmittingOne(
                coder, (w, s, c) -> Collections.singletonList(once(s, c).singleItem()), itemCoder)
            .withAllowedLateness(allowedLateness));
  }

  private Aggregate<Embedded<T>, Embedded<T>, Embedded<T>> step(
      Embedded.EmbeddedCoder<T> coder,
      Aggregate.WindowFunction<Embedded<T>, Embedded<T>, Embedded<T>> fn) {
    return Aggregate.byAllAttributes(coder, fn, coder).withAllowedLateness(allowedLateness);
  }

  /** Slices are unique per root and range; meeting a copy means tuples would be lost. */
  private static <T> Embedded<T> once(Embedded<T> slice, java.util.List<Embedded<T>> copies) {
    if (copies.size() != 1) {
      throw new IllegalStateException(
          "Unwrap.unrolled met "
              + copies.size()
              + " copies of one slice, which would lose tuples: "
              + slice);
    }
    return slice;
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    builder
        .add(DisplayData.item("maxFanOut", maxFanOut).withLabel("N"))
        .add(DisplayData.item("levels", levels(maxFanOut)));
  }
}
