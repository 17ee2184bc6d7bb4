package dev.eventide.trends.query;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * A query's pattern (HAMLET Definition 1): an event type, a sequence, a Kleene plus, a negation
 * inside a sequence, a disjunction or a conjunction, nested freely.
 *
 * <pre>{@code
 * Pattern p = query.pattern();   // PATTERN SEQ(Request, Travel+, NOT Cancel)
 * p.kleeneTypes();               // [Travel]
 * if (p instanceof Pattern.Seq seq) {
 *   seq.items();               // Request, Travel+, NOT Cancel
 * }
 * }</pre>
 */
public sealed interface Pattern extends java.io.Serializable {

  /** One event of the given type. */
  record Atom(String type) implements Pattern {
    @Override
    public String toString() {
      return type;
    }
  }

  /** The items one after the other; {@link Not} items constrain the gaps between the others. */
  record Seq(List<Pattern> items) implements Pattern {
    @Override
    public String toString() {
      return items.stream().map(Object::toString).collect(Collectors.joining(", ", "SEQ(", ")"));
    }
  }

  /** One or more consecutive matches of the inner pattern. */
  record Kleene(Pattern inner) implements Pattern {
    @Override
    public String toString() {
      return inner instanceof Atom ? inner + "+" : "(" + inner + ")+";
    }
  }

  /** No matching event of the type in the gap where it stands; allowed only inside a sequence. */
  record Not(String type) implements Pattern {
    @Override
    public String toString() {
      return "NOT " + type;
    }
  }

  /** A trend matching any of the alternatives, counted once. */
  record Or(List<Pattern> alternatives) implements Pattern {
    @Override
    public String toString() {
      return alternatives.stream()
          .map(Object::toString)
          .collect(Collectors.joining(", ", "OR(", ")"));
    }
  }

  /** A trend matching all of the operands. */
  record And(List<Pattern> operands) implements Pattern {
    @Override
    public String toString() {
      return operands.stream().map(Object::toString).collect(Collectors.joining(", ", "AND(", ")"));
    }
  }

  /** The event types that may occur in a trend (not those only under NOT). */
  default Set<String> positiveTypes() {
    Set<String> types = new TreeSet<>();
    collect(this, types, false);
    return types;
  }

  /** The event types that stand under NOT. */
  default Set<String> negatedTypes() {
    Set<String> types = new TreeSet<>();
    collect(this, types, true);
    return types;
  }

  /** The types E for which {@code E+} occurs in the pattern (the Kleene types). */
  default Set<String> kleeneTypes() {
    Set<String> types = new TreeSet<>();
    collectKleene(this, types);
    return types;
  }

  private static void collect(Pattern p, Set<String> into, boolean negated) {
    if (p instanceof Atom a) {
      if (!negated) {
        into.add(a.type());
      }
    } else if (p instanceof Not n) {
      if (negated) {
        into.add(n.type());
      }
    } else {
      p.children().forEach(c -> collect(c, into, negated));
    }
  }

  private static void collectKleene(Pattern p, Set<String> into) {
    if (p instanceof Kleene k && Patterns.unwrap(k.inner()) instanceof Atom a) {
      into.add(a.type());
    }
    p.children().forEach(c -> collectKleene(c, into));
  }

  /** The direct sub-patterns. */
  default List<Pattern> children() {
    if (this instanceof Seq s) {
      return s.items();
    } else if (this instanceof Kleene k) {
      return List.of(k.inner());
    } else if (this instanceof Or o) {
      return o.alternatives();
    } else if (this instanceof And a) {
      return a.operands();
    }
    return List.of();
  }
}
