package dev.eventide.transforms;

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

/**
 * The tuple type E_J's first two Aggregates emit and its third consumes: ⟨τ, [t], []⟩ for a left
 * tuple, ⟨τ, [], [t]⟩ for a right one (Listing 2), so both streams can be flattened into one (P1).
 * Identical tuples that met in a δ window are all in the list.
 */
final class JoinSides<L, R> {
  final List<L> lefts;
  final List<R> rights;

  JoinSides(List<L> lefts, List<R> rights) {
    this.lefts = Collections.unmodifiableList(new ArrayList<>(lefts));
    this.rights = Collections.unmodifiableList(new ArrayList<>(rights));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof JoinSides
        && ((JoinSides<?, ?>) o).lefts.equals(lefts)
        && ((JoinSides<?, ?>) o).rights.equals(rights);
  }

  @Override
  public int hashCode() {
    return Objects.hash(lefts, rights);
  }

  @Override
  public String toString() {
    return "⟨" + lefts + ", " + rights + "⟩";
  }

  static final class JoinSidesCoder<L, R> extends CustomCoder<JoinSides<L, R>> {
    private final ListCoder<L> lefts;
    private final ListCoder<R> rights;

    JoinSidesCoder(Coder<L> left, Coder<R> right) {
      this.lefts = ListCoder.of(left);
      this.rights = ListCoder.of(right);
    }

    @Override
    public void encode(JoinSides<L, R> value, OutputStream out) throws IOException {
      lefts.encode(value.lefts, out);
      rights.encode(value.rights, out);
    }

    @Override
    public JoinSides<L, R> decode(InputStream in) throws IOException {
      return new JoinSides<>(lefts.decode(in), rights.decode(in));
    }

    @Override
    public List<? extends Coder<?>> getCoderArguments() {
      return List.of(lefts, rights);
    }

    @Override
    public void verifyDeterministic() throws NonDeterministicException {
      verifyDeterministic(this, "join tuples are compared by their encoding", lefts, rights);
    }
  }
}
