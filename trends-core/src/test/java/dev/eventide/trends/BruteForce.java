package dev.eventide.trends;

import dev.eventide.trends.query.Aggregation;
import dev.eventide.trends.query.Pattern;
import dev.eventide.trends.query.Patterns;
import dev.eventide.trends.query.Predicate;
import dev.eventide.trends.query.Query;
import dev.eventide.trends.query.Workload;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The ground truth: enumerates every candidate trend (every subsequence of a window's and group's
 * events with strictly increasing times) and checks it against the pattern by backtracking over the
 * query's syntax tree, following the semantics of {@code shared/DESIGN.md} word for word. It shares
 * no code with the engines beyond the query model; exponential, for small inputs only.
 */
public final class BruteForce {
  private BruteForce() {}

  public static List<TrendResult> evaluate(Workload workload, List<Event> events) {
    List<TrendResult> results = new ArrayList<>();
    for (Query q : workload.queries()) {
      results.addAll(evaluate(q, events));
    }
    results.sort(ORDER);
    return results;
  }

  public static final Comparator<TrendResult> ORDER =
      Comparator.comparingLong(TrendResult::windowEnd)
          .thenComparingLong(TrendResult::windowStart)
          .thenComparing(TrendResult::query)
          .thenComparing(r -> r.group().toString());

  private static List<TrendResult> evaluate(Query q, List<Event> events) {
    List<TrendResult> results = new ArrayList<>();
    TreeSet<Long> starts = new TreeSet<>();
    for (Event e : events) {
      for (long k = Math.floorDiv(e.time() - q.within(), q.slide()) + 1;
          k <= Math.floorDiv(e.time(), q.slide());
          k++) {
        starts.add(k * q.slide());
      }
    }
    for (long start : starts) {
      long end = start + q.within();
      Map<List<Object>, List<Event>> groups = new LinkedHashMap<>();
      for (Event e : events) {
        if (e.time() < start || e.time() >= end || !q.types().contains(e.type())) {
          continue;
        }
        List<Object> group = new ArrayList<>();
        for (String attribute : q.groupBy()) {
          Object v = e.attribute(attribute);
          group.add(v instanceof BigDecimal d ? d.stripTrailingZeros() : v);
        }
        if (!group.contains(null)) {
          groups.computeIfAbsent(group, g -> new ArrayList<>()).add(e);
        }
      }
      for (var group : groups.entrySet()) {
        Totals totals = new Totals();
        new Window(q, group.getValue(), start, end, totals).enumerate();
        if (totals.count.signum() > 0) {
          Map<String, Object> named = new LinkedHashMap<>();
          for (int i = 0; i < q.groupBy().size(); i++) {
            named.put(q.groupBy().get(i), group.getKey().get(i));
          }
          results.add(new TrendResult(q.name(), named, start, end, totals.value(q)));
        }
      }
    }
    return results;
  }

  private static final class Totals {
    BigInteger count = BigInteger.ZERO;
    BigInteger events = BigInteger.ZERO;
    BigDecimal sum = BigDecimal.ZERO;
    BigDecimal min;
    BigDecimal max;

    void add(Query q, List<Event> trend) {
      count = count.add(BigInteger.ONE);
      Aggregation a = q.aggregation();
      for (Event e : trend) {
        if (!e.type().equals(a.type())) {
          continue;
        }
        events = events.add(BigInteger.ONE);
        if (a.attribute() != null) {
          BigDecimal v = (BigDecimal) e.attribute(a.attribute());
          sum = sum.add(v);
          min = min == null || v.compareTo(min) < 0 ? v : min;
          max = max == null || v.compareTo(max) > 0 ? v : max;
        }
      }
    }

    String value(Query q) {
      return switch (q.aggregation().kind()) {
        case COUNT_TRENDS -> count.toString();
        case COUNT_EVENTS -> events.toString();
        case SUM -> sum.stripTrailingZeros().toPlainString();
        case AVG ->
            events.signum() == 0
                ? null
                : sum.divide(new BigDecimal(events), MathContext.DECIMAL128)
                    .stripTrailingZeros()
                    .toPlainString();
        case MIN -> min == null ? null : min.stripTrailingZeros().toPlainString();
        case MAX -> max == null ? null : max.stripTrailingZeros().toPlainString();
      };
    }
  }

  /** All events of one window and group, and the candidate trend being checked. */
  private static final class Window {
    private final Query q;
    private final List<Event> events;
    private final long start;
    private final long end;
    private final Totals totals;
    private final List<Event> trend = new ArrayList<>();

    Window(Query q, List<Event> events, long start, long end, Totals totals) {
      this.q = q;
      this.events = events;
      this.start = start;
      this.end = end;
      this.totals = totals;
    }

    void enumerate() {
      extend(0);
    }

    private void extend(int from) {
      for (int i = from; i < events.size(); i++) {
        Event e = events.get(i);
        if (!q.pattern().positiveTypes().contains(e.type())) {
          continue;
        }
        if (!trend.isEmpty() && trend.get(trend.size() - 1).time() >= e.time()) {
          continue;
        }
        trend.add(e);
        if (sharesEquivalence() && matches(q.pattern(), 0, trend.size())) {
          totals.add(q, trend);
        }
        extend(i + 1);
        trend.remove(trend.size() - 1);
      }
    }

    private boolean sharesEquivalence() {
      Event first = trend.get(0);
      for (String attribute : q.equivalence()) {
        Object v = first.attribute(attribute);
        for (Event e : trend) {
          if (v == null || !same(v, e.attribute(attribute))) {
            return false;
          }
        }
      }
      return true;
    }

    private static boolean same(Object a, Object b) {
      if (a instanceof BigDecimal x && b instanceof BigDecimal y) {
        return x.compareTo(y) == 0;
      }
      return a != null && a.equals(b);
    }

    /** Whether trend[i, j) matches p. */
    private boolean matches(Pattern p, int i, int j) {
      if (p instanceof Pattern.Atom a) {
        return j == i + 1 && trend.get(i).type().equals(a.type()) && satisfies(trend.get(i));
      } else if (p instanceof Pattern.Seq s) {
        return matchesSeq(s.items(), 0, i, j);
      } else if (p instanceof Pattern.Kleene k) {
        boolean run = Patterns.unwrap(k.inner()) instanceof Pattern.Atom;
        return matchesKleene(k.inner(), run, i, j);
      } else if (p instanceof Pattern.Or o) {
        return o.alternatives().stream().anyMatch(x -> matches(x, i, j));
      } else if (p instanceof Pattern.And a) {
        return a.operands().stream().allMatch(x -> matches(x, i, j));
      }
      throw new IllegalStateException("NOT outside SEQ");
    }

    /** Whether trend[i, j) matches items[k..], with no matching event in the NOT gaps. */
    private boolean matchesSeq(List<Pattern> items, int k, int i, int j) {
      // Leading NOTs: the gap before trend[i].
      int next = k;
      List<String> negated = new ArrayList<>();
      while (next < items.size() && items.get(next) instanceof Pattern.Not n) {
        negated.add(n.type());
        next++;
      }
      if (next == items.size()) {
        // Only trailing NOTs left: the segment must be empty, the gap after trend[i-1] clear.
        return i == j && clear(negated, before(i), after(i));
      }
      if (!clear(negated, before(i), i < trend.size() ? trend.get(i).time() : end)) {
        return false;
      }
      Pattern item = items.get(next);
      boolean last =
          items.subList(next + 1, items.size()).stream().allMatch(x -> x instanceof Pattern.Not);
      for (int split = i + 1; split <= j; split++) {
        if (last && split != j) {
          continue;
        }
        if (matches(item, i, split) && matchesSeq(items, next + 1, split, j)) {
          return true;
        }
      }
      return false;
    }

    private boolean matchesKleene(Pattern inner, boolean run, int i, int j) {
      for (int split = i + 1; split <= j; split++) {
        if (!matches(inner, i, split)) {
          continue;
        }
        if (split == j) {
          return true;
        }
        if (run && !adjacentHolds(trend.get(split - 1), trend.get(split))) {
          continue;
        }
        if (matchesKleene(inner, run, split, j)) {
          return true;
        }
      }
      return false;
    }

    /** The time just before trend[i]'s gap: the previous trend event, or before the window. */
    private long before(int i) {
      return i > 0 ? trend.get(i - 1).time() : start - 1;
    }

    /** The time closing the gap after trend[i-1]: the next trend event, or the window's end. */
    private long after(int i) {
      return i < trend.size() ? trend.get(i).time() : end;
    }

    /** No matching event of the negated types strictly between the times. */
    private boolean clear(List<String> negated, long from, long to) {
      for (Event e : events) {
        if (negated.contains(e.type())
            && e.time() > from
            && e.time() < to
            && satisfies(e)
            && sharesEquivalenceWithTrend(e)) {
          return false;
        }
      }
      return true;
    }

    private boolean sharesEquivalenceWithTrend(Event e) {
      for (String attribute : q.equivalence()) {
        Object v = e.attribute(attribute);
        if (v == null || !same(v, trend.get(0).attribute(attribute))) {
          return false;
        }
      }
      return true;
    }

    private boolean satisfies(Event e) {
      for (Predicate p : q.predicates()) {
        if (p instanceof Predicate.OnEvent c
            && c.type().equals(e.type())
            && !c.op().test(e.attribute(c.attribute()), c.constant())) {
          return false;
        }
      }
      return true;
    }

    private boolean adjacentHolds(Event earlier, Event later) {
      for (Predicate p : q.predicates()) {
        if (p instanceof Predicate.OnAdjacent c
            && c.type().equals(later.type())
            && !c.op().test(earlier.attribute(c.attribute()), later.attribute(c.nextAttribute()))) {
          return false;
        }
      }
      return true;
    }
  }
}
