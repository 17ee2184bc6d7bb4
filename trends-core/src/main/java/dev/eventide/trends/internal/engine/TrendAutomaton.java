package dev.eventide.trends.internal.engine;

import dev.eventide.trends.query.Pattern;
import dev.eventide.trends.query.Patterns;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A query's pattern as an automaton whose states are labelled with event types (a position
 * automaton: entering a state reads one event of its type), after GRETA's query template. NOT
 * becomes a constraint on the transitions across its gap, and on the start or the end of a trend
 * when it leads or trails the pattern; AND is the product of its operands. Every transition, start
 * and end carries alternatives of {@link Constraint}s, any of which may hold.
 *
 * <p>Immutable; at most 63 states, so that sets of states fit in a {@code long}.
 */
public final class TrendAutomaton {
  static final int MAX_STATES = 63;

  private final String[] labels;
  private final List<String> negatedTypes;
  private final List<List<Constraint>> start;
  private final List<List<Constraint>> end;

  /** edges.get(from): to-state -> alternatives. */
  private final List<Map<Integer, List<Constraint>>> edges;

  private TrendAutomaton(
      String[] labels,
      List<String> negatedTypes,
      List<List<Constraint>> start,
      List<List<Constraint>> end,
      List<Map<Integer, List<Constraint>>> edges) {
    this.labels = labels;
    this.negatedTypes = negatedTypes;
    this.start = start;
    this.end = end;
    this.edges = edges;
  }

  /**
   * Returns the automaton of the pattern.
   *
   * @throws IllegalArgumentException if it needs more than {@value #MAX_STATES} states
   */
  public static TrendAutomaton of(Pattern pattern) {
    List<String> negated = new ArrayList<>(pattern.negatedTypes());
    if (negated.size() > 63) {
      throw new IllegalArgumentException("a pattern may negate at most 63 event types");
    }
    Builder b = new Builder(negated).compile(pattern).prune();
    if (b.labels.size() > MAX_STATES) {
      throw new IllegalArgumentException(
          "pattern "
              + abbreviated(pattern)
              + " needs "
              + b.labels.size()
              + " automaton states; at most "
              + MAX_STATES
              + " are supported (one per event type the pattern matches"
              + (contains(pattern, Pattern.And.class)
                  ? ", and AND multiplies the states of its operands)"
                  : ")"));
    }
    List<Map<Integer, List<Constraint>>> edges = new ArrayList<>();
    for (int s = 0; s < b.labels.size(); s++) {
      edges.add(Map.copyOf(b.edges.getOrDefault(s, Map.of())));
    }
    List<List<Constraint>> start = new ArrayList<>();
    List<List<Constraint>> end = new ArrayList<>();
    for (int s = 0; s < b.labels.size(); s++) {
      start.add(b.start.getOrDefault(s, List.of()));
      end.add(b.end.getOrDefault(s, List.of()));
    }
    return new TrendAutomaton(
        b.labels.toArray(String[]::new), List.copyOf(negated), start, end, edges);
  }

  /** The pattern as written, shortened for a message if long (an OR of a thousand types). */
  private static String abbreviated(Pattern pattern) {
    String text = pattern.toString();
    int limit = 120;
    return text.length() <= limit
        ? text
        : text.substring(0, limit) + "… (" + text.length() + " characters)";
  }

  private static boolean contains(Pattern pattern, Class<? extends Pattern> kind) {
    return kind.isInstance(pattern) || pattern.children().stream().anyMatch(c -> contains(c, kind));
  }

  public int size() {
    return labels.length;
  }

  public String label(int state) {
    return labels[state];
  }

  /** The types under NOT; bit i of a {@link Constraint#notMask()} stands for type i. */
  public List<String> negatedTypes() {
    return negatedTypes;
  }

  /** How a trend may start in this state (empty: it may not). */
  List<Constraint> start(int state) {
    return start.get(state);
  }

  /** How a trend may end in this state (empty: it may not). */
  List<Constraint> end(int state) {
    return end.get(state);
  }

  /** The transitions out of a state: target state to alternatives. */
  Map<Integer, List<Constraint>> edges(int from) {
    return edges.get(from);
  }

  /** The set of states labelled with the type, as a bit mask. */
  long statesOf(String type) {
    long mask = 0;
    for (int s = 0; s < labels.length; s++) {
      if (labels[s].equals(type)) {
        mask |= 1L << s;
      }
    }
    return mask;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder();
    for (int s = 0; s < labels.length; s++) {
      sb.append(s).append(':').append(labels[s]);
      if (!start.get(s).isEmpty()) {
        sb.append(" start").append(start.get(s));
      }
      if (!end.get(s).isEmpty()) {
        sb.append(" end").append(end.get(s));
      }
      sb.append(" -> ").append(edges.get(s)).append('\n');
    }
    return sb.toString();
  }

  /** Thompson-style construction over labelled states, one method per pattern form. */
  private static final class Builder {
    private final List<String> negated;
    private final List<String> labels = new ArrayList<>();
    private final Map<Integer, List<Constraint>> start = new LinkedHashMap<>();
    private final Map<Integer, List<Constraint>> end = new LinkedHashMap<>();
    private final Map<Integer, Map<Integer, List<Constraint>>> edges = new HashMap<>();

    Builder(List<String> negated) {
      this.negated = negated;
    }

    Builder compile(Pattern p) {
      if (p instanceof Pattern.Atom a) {
        labels.add(a.type());
        start.put(0, List.of(Constraint.NONE));
        end.put(0, List.of(Constraint.NONE));
      } else if (p instanceof Pattern.Seq s) {
        seq(s);
      } else if (p instanceof Pattern.Kleene k) {
        compile(k.inner());
        boolean run = Patterns.unwrap(k.inner()) instanceof Pattern.Atom;
        List<Constraint> loop = List.of(new Constraint(0, run));
        for (var f : Map.copyOf(end).entrySet()) {
          for (var i : start.entrySet()) {
            addEdge(
                f.getKey(),
                i.getKey(),
                Constraint.and(Constraint.and(f.getValue(), i.getValue()), loop));
          }
        }
      } else if (p instanceof Pattern.Or o) {
        compile(o.alternatives().get(0));
        for (Pattern alternative : o.alternatives().subList(1, o.alternatives().size())) {
          Builder other = new Builder(negated).compile(alternative);
          int offset = append(other);
          other.start.forEach((s, c) -> start.put(s + offset, c));
          other.end.forEach((s, c) -> end.put(s + offset, c));
        }
      } else if (p instanceof Pattern.And a) {
        compile(a.operands().get(0));
        for (Pattern operand : a.operands().subList(1, a.operands().size())) {
          product(new Builder(negated).compile(operand).prune());
          prune();
        }
      } else {
        throw new IllegalArgumentException("NOT outside SEQ: " + p);
      }
      return this;
    }

    private void seq(Pattern.Seq s) {
      long pending = 0;
      boolean first = true;
      for (Pattern item : s.items()) {
        if (item instanceof Pattern.Not n) {
          pending |= 1L << negated.indexOf(n.type());
          continue;
        }
        List<Constraint> gap = List.of(new Constraint(pending, false));
        if (first) {
          compile(item);
          start.replaceAll((state, c) -> Constraint.and(c, gap));
          first = false;
        } else {
          Builder next = new Builder(negated).compile(item);
          Map<Integer, List<Constraint>> ends = Map.copyOf(end);
          int offset = append(next);
          for (var f : ends.entrySet()) {
            for (var i : next.start.entrySet()) {
              List<Constraint> alternatives =
                  Constraint.and(Constraint.and(f.getValue(), gap), i.getValue());
              addEdge(f.getKey(), i.getKey() + offset, alternatives);
            }
          }
          end.clear();
          next.end.forEach((state, c) -> end.put(state + offset, c));
        }
        pending = 0;
      }
      List<Constraint> trailing = List.of(new Constraint(pending, false));
      end.replaceAll((state, c) -> Constraint.and(c, trailing));
    }

    /** Copies the other builder's states and edges after ours; returns their offset. */
    private int append(Builder other) {
      int offset = labels.size();
      labels.addAll(other.labels);
      other.edges.forEach(
          (from, out) -> out.forEach((to, c) -> addEdge(from + offset, to + offset, c)));
      return offset;
    }

    private void product(Builder other) {
      List<String> productLabels = new ArrayList<>();
      Map<Long, Integer> index = new HashMap<>();
      for (int a = 0; a < labels.size(); a++) {
        for (int b = 0; b < other.labels.size(); b++) {
          if (labels.get(a).equals(other.labels.get(b))) {
            index.put(((long) a << 32) | b, productLabels.size());
            productLabels.add(labels.get(a));
          }
        }
      }
      Map<Integer, List<Constraint>> productStart = new LinkedHashMap<>();
      Map<Integer, List<Constraint>> productEnd = new LinkedHashMap<>();
      Map<Integer, Map<Integer, List<Constraint>>> productEdges = new HashMap<>();
      for (var pair : index.entrySet()) {
        int a = (int) (pair.getKey() >>> 32);
        int b = (int) (long) pair.getKey();
        int state = pair.getValue();
        if (start.containsKey(a) && other.start.containsKey(b)) {
          productStart.put(state, Constraint.and(start.get(a), other.start.get(b)));
        }
        if (end.containsKey(a) && other.end.containsKey(b)) {
          productEnd.put(state, Constraint.and(end.get(a), other.end.get(b)));
        }
        for (var ea : edges.getOrDefault(a, Map.of()).entrySet()) {
          for (var eb : other.edges.getOrDefault(b, Map.of()).entrySet()) {
            Integer to = index.get(((long) ea.getKey() << 32) | eb.getKey());
            if (to != null) {
              productEdges
                  .computeIfAbsent(state, k -> new HashMap<>())
                  .merge(to, Constraint.and(ea.getValue(), eb.getValue()), Constraint::or);
            }
          }
        }
      }
      labels.clear();
      labels.addAll(productLabels);
      start.clear();
      start.putAll(productStart);
      end.clear();
      end.putAll(productEnd);
      edges.clear();
      edges.putAll(productEdges);
    }

    private void addEdge(int from, int to, List<Constraint> alternatives) {
      edges.computeIfAbsent(from, k -> new HashMap<>()).merge(to, alternatives, Constraint::or);
    }

    /** Keeps only states on some path from a start to an end, renumbered in order. */
    Builder prune() {
      int n = labels.size();
      boolean[] reachable = new boolean[n];
      List<Integer> work = new ArrayList<>(start.keySet());
      work.forEach(s -> reachable[s] = true);
      while (!work.isEmpty()) {
        int s = work.remove(work.size() - 1);
        for (int to : edges.getOrDefault(s, Map.of()).keySet()) {
          if (!reachable[to]) {
            reachable[to] = true;
            work.add(to);
          }
        }
      }
      boolean[] useful = new boolean[n];
      for (int s : end.keySet()) {
        useful[s] = true;
      }
      for (boolean changed = true; changed; ) {
        changed = false;
        for (var out : edges.entrySet()) {
          if (!useful[out.getKey()]
              && out.getValue().keySet().stream().anyMatch(to -> useful[to])) {
            useful[out.getKey()] = true;
            changed = true;
          }
        }
      }
      int[] renumber = new int[n];
      List<String> kept = new ArrayList<>();
      for (int s = 0; s < n; s++) {
        renumber[s] = reachable[s] && useful[s] ? kept.size() : -1;
        if (renumber[s] >= 0) {
          kept.add(labels.get(s));
        }
      }
      Map<Integer, List<Constraint>> newStart = new LinkedHashMap<>();
      start.forEach((s, c) -> putIfKept(newStart, renumber[s], c));
      Map<Integer, List<Constraint>> newEnd = new LinkedHashMap<>();
      end.forEach((s, c) -> putIfKept(newEnd, renumber[s], c));
      Map<Integer, Map<Integer, List<Constraint>>> newEdges = new HashMap<>();
      edges.forEach(
          (from, out) ->
              out.forEach(
                  (to, c) -> {
                    if (renumber[from] >= 0 && renumber[to] >= 0) {
                      newEdges
                          .computeIfAbsent(renumber[from], k -> new HashMap<>())
                          .put(renumber[to], c);
                    }
                  }));
      labels.clear();
      labels.addAll(kept);
      start.clear();
      start.putAll(newStart);
      end.clear();
      end.putAll(newEnd);
      edges.clear();
      edges.putAll(newEdges);
      return this;
    }

    private static void putIfKept(
        Map<Integer, List<Constraint>> into, int state, List<Constraint> c) {
      if (state >= 0) {
        into.put(state, c);
      }
    }
  }
}
