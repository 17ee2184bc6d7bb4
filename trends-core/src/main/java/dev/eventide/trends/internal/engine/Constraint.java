package dev.eventide.trends.internal.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * What must hold for one way of taking a transition of a {@link TrendAutomaton}: no matching event
 * of the negated types in {@code notMask} (bits index {@link TrendAutomaton#negatedTypes()}) in the
 * gap, and, if {@code adjacent}, the query's {@code E.a op NEXT(E).b} predicates between the two
 * events (the transition continues a Kleene run of E).
 */
record Constraint(long notMask, boolean adjacent) {
  static final Constraint NONE = new Constraint(0, false);

  Constraint and(Constraint other) {
    return new Constraint(notMask | other.notMask, adjacent || other.adjacent);
  }

  /** Whether this constraint is implied by {@code other} (holds whenever other holds). */
  boolean weakerThan(Constraint other) {
    return (notMask & ~other.notMask) == 0 && (!adjacent || other.adjacent);
  }

  /** Alternatives that must all hold on both sides: every pair, conjoined. */
  static List<Constraint> and(List<Constraint> left, List<Constraint> right) {
    List<Constraint> out = new ArrayList<>();
    for (Constraint l : left) {
      for (Constraint r : right) {
        out.add(l.and(r));
      }
    }
    return simplify(out);
  }

  /** Alternatives from either side. */
  static List<Constraint> or(List<Constraint> left, List<Constraint> right) {
    List<Constraint> out = new ArrayList<>(left);
    out.addAll(right);
    return simplify(out);
  }

  /** Drops alternatives implied by a weaker one: if the weaker fails, so does the stronger. */
  static List<Constraint> simplify(List<Constraint> alternatives) {
    List<Constraint> kept = new ArrayList<>();
    for (Constraint c : alternatives) {
      if (kept.stream().anyMatch(k -> k.weakerThan(c))) {
        continue;
      }
      kept.removeIf(c::weakerThan);
      kept.add(c);
    }
    return List.copyOf(kept);
  }
}
