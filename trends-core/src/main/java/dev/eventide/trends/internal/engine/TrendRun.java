package dev.eventide.trends.internal.engine;

import dev.eventide.trends.Event;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The trend graph of one query in one window and one partition (GRETA, Section 3.2 of the HAMLET
 * paper, Equations 1–3, generalised to any pattern): a node per matched event and automaton state
 * set, carrying the aggregates of all trend prefixes that end there. A new event's node sums its
 * predecessors' aggregates, one by one, so predicates between adjacent events and NOT gaps are
 * checked on every edge. Each trend prefix has exactly one state set (the states the automaton can
 * be in after reading it), so every trend is counted once however ambiguous the pattern.
 */
final class TrendRun {
  /** A matched event with the states the automaton may be in after it, and its aggregates. */
  record Node(Event event, long states, TrendSums value) {}

  private final CompiledQuery query;
  private final long windowStart;
  private final long windowEnd;
  private final List<Node> nodes = new ArrayList<>();

  /** Times of the matching events of each negated type, in order. */
  private final long[][] negatedTimes;

  private final int[] negatedCounts;

  /** nodes[0, earlier) have a time before the current event's. */
  private int earlier;

  private long edgesVisited;

  TrendRun(CompiledQuery query, long windowStart, long windowEnd) {
    this.query = query;
    this.windowStart = windowStart;
    this.windowEnd = windowEnd;
    int negated = query.automaton.negatedTypes().size();
    this.negatedTimes = new long[negated][];
    this.negatedCounts = new int[negated];
    for (int i = 0; i < negated; i++) {
      negatedTimes[i] = new long[4];
    }
  }

  /** Adds an event that the query matches (its type and predicates). */
  void onEvent(Event e) {
    recordNegated(e);
    long candidates = query.statesOf(e.type());
    if (candidates == 0) {
      return;
    }
    advanceTo(e.time());
    long[] sets = new long[2];
    TrendSums[] incoming = new TrendSums[2];
    int distinct = 0;
    long start = startStates(e, candidates);
    if (start != 0) {
      sets[0] = start;
      incoming[0] = TrendSums.one(query.shape);
      distinct = 1;
    }
    // pe(e, q) is empty for an event of a start-only type: no predecessor to visit.
    int predecessors = (candidates & query.statesWithPredecessors()) == 0 ? 0 : earlier;
    edgesVisited += predecessors;
    for (int i = 0; i < predecessors; i++) {
      Node p = nodes.get(i);
      long next = successors(p, e, candidates);
      if (next == 0) {
        continue;
      }
      int slot = 0;
      while (slot < distinct && sets[slot] != next) {
        slot++;
      }
      if (slot == distinct) {
        if (distinct == sets.length) {
          sets = Arrays.copyOf(sets, distinct * 2);
          incoming = Arrays.copyOf(incoming, distinct * 2);
        }
        sets[slot] = next;
        incoming[slot] = TrendSums.empty(query.shape);
        distinct++;
      }
      incoming[slot].add(p.value());
    }
    for (int i = 0; i < distinct; i++) {
      query.extend(incoming[i], e);
      add(new Node(e, sets[i], incoming[i]));
    }
  }

  private void add(Node node) {
    nodes.add(node);
  }

  private void recordNegated(Event e) {
    long bit = query.negatedBit(e.type());
    if (bit != 0) {
      int i = Long.numberOfTrailingZeros(bit);
      if (negatedCounts[i] == negatedTimes[i].length) {
        negatedTimes[i] = Arrays.copyOf(negatedTimes[i], negatedCounts[i] * 2);
      }
      negatedTimes[i][negatedCounts[i]++] = e.time();
    }
  }

  long edgesVisited() {
    return edgesVisited;
  }

  /** The aggregates over all complete trends in the window (Equation 3). */
  TrendSums close() {
    TrendSums result = TrendSums.empty(query.shape);
    for (Node node : nodes) {
      for (long s = node.states(); s != 0; s &= s - 1) {
        int state = Long.numberOfTrailingZeros(s);
        if (anyHolds(query.automaton.end(state), node.event().time(), windowEnd, null, null)) {
          result.add(node.value());
          break;
        }
      }
    }
    return result;
  }

  private void advanceTo(long time) {
    while (earlier < nodes.size() && nodes.get(earlier).event().time() < time) {
      earlier++;
    }
  }

  private long startStates(Event e, long candidates) {
    long states = 0;
    for (long s = candidates; s != 0; s &= s - 1) {
      int state = Long.numberOfTrailingZeros(s);
      if (anyHolds(query.automaton.start(state), windowStart - 1, e.time(), null, null)) {
        states |= 1L << state;
      }
    }
    return states;
  }

  private long successors(Node p, Event e, long candidates) {
    long next = 0;
    for (long s = p.states(); s != 0; s &= s - 1) {
      int from = Long.numberOfTrailingZeros(s);
      int[] targets = query.targets(from);
      List<Constraint>[] alternatives = query.alternatives(from);
      for (int k = 0; k < targets.length; k++) {
        long bit = 1L << targets[k];
        if ((candidates & bit) != 0
            && (next & bit) == 0
            && anyHolds(alternatives[k], p.event().time(), e.time(), p.event(), e)) {
          next |= bit;
        }
      }
    }
    return next;
  }

  /** Whether one of the alternatives holds for a gap (from, to), both ends exclusive. */
  private boolean anyHolds(
      List<Constraint> alternatives, long from, long to, Event earlier, Event later) {
    for (Constraint c : alternatives) {
      if (holds(c, from, to, earlier, later)) {
        return true;
      }
    }
    return false;
  }

  private boolean holds(Constraint c, long from, long to, Event earlier, Event later) {
    for (long m = c.notMask(); m != 0; m &= m - 1) {
      if (anyBetween(Long.numberOfTrailingZeros(m), from, to)) {
        return false;
      }
    }
    return !c.adjacent() || query.adjacentHolds(earlier, later);
  }

  private boolean anyBetween(int negated, long from, long to) {
    long[] times = negatedTimes[negated];
    int n = negatedCounts[negated];
    // first index with time > from
    int lo = 0;
    int hi = n;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (times[mid] <= from) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo < n && times[lo] < to;
  }
}
