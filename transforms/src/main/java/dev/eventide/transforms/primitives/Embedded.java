package dev.eventide.transforms.primitives;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CustomCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.VarLongCoder;

/**
 * The paper's embedded tuple ⟨τ, T, c⟩ that E produces and X unwraps (τ is the Beam timestamp). It
 * stands for the list {@code items} repeated {@code inputCopies × loopCopies} times:
 *
 * <pre>{@code
 * PCollection<Embedded<String>> wordLists =
 *     lines.apply(Embed.flatMap((String line) -> List.of(line.split(" ")), StringUtf8Coder.of()));
 * PCollection<String> words = wordLists.apply(Unwrap.unrolled(64));   // lines of 64 words at most
 * }</pre>
 *
 * <ul>
 *   <li>{@code inputCopies}: identical input tuples that met in E's δ window, each contributing
 *       {@code items} (the paper concatenates them; a count carries the same information in
 *       constant space, which keeps 10,000 copies of one event cheap);
 *   <li>{@code loopCopies}: identical E outputs that met in X's first loop step (0 before it);
 *   <li>{@code firing}: which firing of X's loop, for this E output and timestamp, started the
 *       loop: 0 for the copies that arrived on time, −1, −2, ... for each copy that arrived late;
 *   <li>{@code index}: the counter c, −1 for E's output, then the position X emits next.
 * </ul>
 *
 * <p>Keeping both counts, rather than their product, keeps the loops of different E outputs apart:
 * ⟨[a], 2⟩ met once and ⟨[a], 1⟩ met twice both stand for [a, a], and X's last step, an Aggregate
 * keyed by all attributes, would otherwise merge their tuples and lose half of the output. The
 * firing number does the same for copies of one E output that reach the loop on time and late:
 * their loops would otherwise be identical, and could meet in one pane of the last step.
 */
public final class Embedded<T> {
  private final List<T> items;
  private final long inputCopies;
  private final long loopCopies;
  private final long firing;
  private final long index;
  // For Unwrap.unrolled: the exclusive end of the slice [index, end); -1 for the loop's tuples.
  private final long end;

  private Embedded(
      List<T> items, long inputCopies, long loopCopies, long firing, long index, long end) {
    // Items may be null, as Beam's element-wise transforms pass nulls through.
    this.items = Collections.unmodifiableList(new ArrayList<>(items));
    this.inputCopies = inputCopies;
    this.loopCopies = loopCopies;
    this.firing = firing;
    this.index = index;
    this.end = end;
  }

  /**
   * A list for {@link Unwrap} to emit item by item: how an Aggregate, whose f_O emits at most one
   * output per firing, emits any number of them. Each item keeps the Aggregate's output timestamp.
   *
   * <pre>{@code
   * PCollection<Embedded<String>> usersTwice =
   *     events.apply(
   *         Aggregate.within(WindowSpec.tumbling(Duration.standardMinutes(1)))
   *             .keyedBy(Event::user)
   *             .withKeyCoder(StringUtf8Coder.of())
   *             .via((window, user, tuples) -> Optional.of(Embedded.of(List.of(user, user))))
   *             .withOutputCoder(Embedded.EmbeddedCoder.of(StringUtf8Coder.of())));
   * PCollection<String> users = usersTwice.apply(Unwrap.create());
   * }</pre>
   */
  public static <T> Embedded<T> of(List<T> items) {
    return of(Objects.requireNonNull(items, "items"), 1);
  }

  /** E's output: {@code items}, from {@code inputCopies} identical inputs. */
  static <T> Embedded<T> of(List<T> items, long inputCopies) {
    return new Embedded<>(items, inputCopies, 0, 0, -1, -1);
  }

  /** A copy at another position: index and end, with the same items, counts and firing. */
  private Embedded<T> at(long index, long end) {
    return new Embedded<>(items, inputCopies, loopCopies, firing, index, end);
  }

  List<T> items() {
    return items;
  }

  long index() {
    return index;
  }

  boolean isFromEmbed() {
    return index < 0;
  }

  /** How many items this tuple stands for. */
  long size() {
    return Math.multiplyExact(Math.multiplyExact((long) items.size(), inputCopies), loopCopies);
  }

  /** X's first step: {@code copies} identical E outputs met; start at position 0. */
  Embedded<T> firstOf(long copies) {
    return new Embedded<>(items, inputCopies, copies, 0, 0, -1);
  }

  /** The same position, in the loop started by the given firing. */
  Embedded<T> inFiring(long firing) {
    return new Embedded<>(items, inputCopies, loopCopies, firing, index, end);
  }

  /** The next position, if any. */
  java.util.Optional<Embedded<T>> next() {
    return index + 1 < size()
        ? java.util.Optional.of(at(index + 1, end))
        : java.util.Optional.empty();
  }

  /** The whole merged list as one slice, [0, size). */
  Embedded<T> asSlice() {
    return at(0, size());
  }

  private long middle() {
    return index + (end - index + 1) / 2;
  }

  /** The left half of a slice of two or more items; a one-item slice stays whole. */
  java.util.Optional<Embedded<T>> leftHalf() {
    return java.util.Optional.of(at(index, end - index <= 1 ? end : middle()));
  }

  /** The right half of a slice of two or more items. */
  java.util.Optional<Embedded<T>> rightHalf() {
    return end - index <= 1 ? java.util.Optional.empty() : java.util.Optional.of(at(middle(), end));
  }

  /** The item of a one-item slice (null if the item is). */
  T singleItem() {
    if (end - index != 1) {
      throw new IllegalStateException("not a one-item slice after all levels: " + this);
    }
    return item();
  }

  /** The item at the current position. */
  T item() {
    return items.get((int) (index % items.size()));
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Embedded)) {
      return false;
    }
    Embedded<?> e = (Embedded<?>) o;
    return inputCopies == e.inputCopies
        && loopCopies == e.loopCopies
        && firing == e.firing
        && index == e.index
        && end == e.end
        && items.equals(e.items);
  }

  @Override
  public int hashCode() {
    return Objects.hash(items, inputCopies, loopCopies, firing, index, end);
  }

  @Override
  public String toString() {
    return String.format(
        "⟨%s ×%d ×%d, firing %d, c=%d%s⟩",
        items, inputCopies, loopCopies, firing, index, end < 0 ? "" : ".." + end);
  }

  /** Coder of {@link Embedded}; deterministic when the item coder is. */
  public static final class EmbeddedCoder<T> extends CustomCoder<Embedded<T>> {
    private static final VarLongCoder LONG = VarLongCoder.of();
    private final Coder<T> itemCoder;
    private final ListCoder<T> listCoder;

    private EmbeddedCoder(Coder<T> itemCoder) {
      this.itemCoder = itemCoder;
      this.listCoder = ListCoder.of(itemCoder);
    }

    public static <T> EmbeddedCoder<T> of(Coder<T> itemCoder) {
      return new EmbeddedCoder<>(itemCoder);
    }

    public Coder<T> itemCoder() {
      return itemCoder;
    }

    @Override
    public void encode(Embedded<T> value, OutputStream out) throws IOException {
      listCoder.encode(value.items, out);
      LONG.encode(value.inputCopies, out);
      LONG.encode(value.loopCopies, out);
      LONG.encode(value.firing, out);
      // VarLong would spend 10 bytes on −1; shift so −1 encodes as 0.
      LONG.encode(value.index + 1, out);
      LONG.encode(value.end + 1, out);
    }

    @Override
    public Embedded<T> decode(InputStream in) throws IOException {
      return new Embedded<>(
          listCoder.decode(in),
          LONG.decode(in),
          LONG.decode(in),
          LONG.decode(in),
          LONG.decode(in) - 1,
          LONG.decode(in) - 1);
    }

    @Override
    public List<? extends Coder<?>> getCoderArguments() {
      return List.of(itemCoder);
    }

    @Override
    public void verifyDeterministic() throws NonDeterministicException {
      verifyDeterministic(this, "items are compared by their encoding", itemCoder);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof EmbeddedCoder && ((EmbeddedCoder<?>) o).itemCoder.equals(itemCoder);
    }

    @Override
    public int hashCode() {
      return itemCoder.hashCode();
    }
  }
}
