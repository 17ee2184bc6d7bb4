package dev.eventide.trends.engine;

import dev.eventide.trends.Event;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.query.Workload;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * HAMLET's shared online trend aggregation (Sections 3.3 and 4 of the paper). Queries that can
 * share a Kleene sub-pattern {@code E+} ({@link SharingAnalysis}) are executed together: a burst of
 * E events (Definition 10) is buffered, the optimizer decides with the benefit model (Equation 8)
 * whether to share it, and if so the burst becomes one shared graphlet whose events' aggregates are
 * linear expressions over snapshots — one graphlet-level snapshot per burst holding what flows into
 * the burst for each query (Equation 5), plus an event-level snapshot for each event whose
 * predecessors differ between queries (Definition 9). The expressions are propagated once for all
 * queries, then evaluated per query. Bursts not worth sharing are processed per query (a split); a
 * shared burst after unshared ones starts a new snapshot from the per-query graphs (a merge).
 * Everything else runs as in {@link GretaEngine}.
 *
 * <p>Counters: {@code bursts}, {@code burstEvents}, {@code burstsShared}, {@code snapshots}, {@code
 * eventSnapshots}, {@code splits}, {@code merges}, {@code edgesVisited} (edges between events
 * visited per query, plus edges of shared graphlets visited once for all).
 */
public final class HamletEngine extends WindowedEngine {

  /** Whether the optimizer decides per burst or always shares. */
  public enum Sharing {
    /** Per burst, by the benefit model (Equation 8), after the pruning principles. */
    DYNAMIC,
    /** Every burst of a sharable Kleene type is shared by all queries of its group. */
    STATIC
  }

  private final Counters counters;

  private HamletEngine(List<Unit> units, Counters counters, Consumer<TrendResult> sink) {
    super(units, sink);
    this.counters = counters;
  }

  /** Returns an engine for the workload that hands each result to the sink. */
  public static HamletEngine create(
      Workload workload, Sharing sharing, Consumer<TrendResult> sink) {
    Counters counters = new Counters();
    List<CompiledQuery> queries = CompiledQuery.compile(workload.queries());
    List<Unit> units = new ArrayList<>();
    Set<CompiledQuery> shared = new HashSet<>();
    for (SharingAnalysis.ShareGroup group : SharingAnalysis.shareGroups(queries)) {
      units.add(new Shared(group, sharing, counters));
      shared.addAll(group.members());
    }
    for (CompiledQuery q : queries) {
      if (!shared.contains(q)) {
        units.add(new GretaEngine.Alone(q, counters));
      }
    }
    return new HamletEngine(units, counters, sink);
  }

  @Override
  public Map<String, Long> statistics() {
    return counters.snapshot();
  }

  /**
   * Equation 8: the cost of processing a burst per query minus the cost of sharing it,
   *
   * <pre>
   * NonShared = k · b · (log2 g + n)
   * Shared    = k · snapshotCost + b · (log2 g + nShared · s_p)
   * </pre>
   *
   * In the paper {@code snapshotCost = s_c · g · p} (each of s_c snapshots sums p graphlets of g
   * events, per query) and {@code nShared = n}.
   *
   * @param k queries sharing
   * @param b events in the burst
   * @param n predecessors of each event when the burst is processed per query
   * @param nShared predecessors each event of the shared graphlet visits
   * @param g events per graphlet
   * @param snapshotCost reads to create the burst's snapshots, per query
   * @param sp snapshots propagated per event (the length of its expression)
   */
  static double benefit(
      int k, int b, double n, double nShared, int g, double snapshotCost, double sp) {
    double log = g > 1 ? Math.log(g) / Math.log(2) : 0;
    double shared = k * snapshotCost + b * (log + nShared * sp);
    double nonShared = (double) k * b * (log + n);
    return nonShared - shared;
  }

  /** Queries sharing the Kleene type {@code type}. */
  private static final class Shared extends Unit {
    private final String type;
    private final Sharing sharing;
    private final Counters counters;

    /** Distinct attributes of E that members sum (SUM or AVG of E.a). */
    private final List<String> summedAttributes;

    Shared(SharingAnalysis.ShareGroup group, Sharing sharing, Counters counters) {
      super(group.members());
      this.type = group.type();
      this.sharing = sharing;
      this.counters = counters;
      Set<String> attributes = new java.util.LinkedHashSet<>();
      for (CompiledQuery q : members) {
        if (q.isAggregated(type) && q.query.aggregation().attribute() != null) {
          attributes.add(q.query.aggregation().attribute());
        }
      }
      this.summedAttributes = List.copyOf(attributes);
    }

    @Override
    Executor newExecutor(long windowStart, long windowEnd) {
      return new SharedExecutor(this, windowStart, windowEnd);
    }
  }

  /** The shared execution of one share group over one window of one partition. */
  private static final class SharedExecutor implements Executor {
    private final Shared unit;
    private final List<CompiledQuery> members;
    private final TrendRun[] runs;
    private final List<Event> burst = new ArrayList<>();
    private long lastOtherTime = Long.MIN_VALUE;
    private Boolean lastShared;

    SharedExecutor(Shared unit, long windowStart, long windowEnd) {
      this.unit = unit;
      this.members = unit.members;
      this.runs = new TrendRun[members.size()];
      for (int m = 0; m < runs.length; m++) {
        runs[m] = new TrendRun(members.get(m), windowStart, windowEnd, unit.type);
      }
    }

    @Override
    public void onEvent(Event e) {
      if (e.type().equals(unit.type)) {
        if (burst.isEmpty() && e.time() == lastOtherTime) {
          // An event of another type at the same time may precede later burst events but not
          // this one: the graphlet-level snapshot would not hold for all, so go alone.
          processAlone(e);
        } else {
          burst.add(e);
        }
        return;
      }
      flush();
      lastOtherTime = e.time();
      processAlone(e);
    }

    @Override
    public Map<CompiledQuery, Agg> close() {
      flush();
      Map<CompiledQuery, Agg> results = new LinkedHashMap<>();
      for (int m = 0; m < runs.length; m++) {
        unit.counters.add("edgesVisited", runs[m].edgesVisited());
        results.put(members.get(m), runs[m].close());
      }
      return results;
    }

    private void processAlone(Event e) {
      for (int m = 0; m < runs.length; m++) {
        if (members.get(m).matches(e)) {
          runs[m].onEvent(e);
        }
      }
    }

    private void flush() {
      if (burst.isEmpty()) {
        return;
      }
      unit.counters.add("bursts", 1);
      unit.counters.add("burstEvents", burst.size());
      List<int[]> plan = unit.sharing == Sharing.STATIC ? List.of(allMembers()) : plan();
      boolean share = plan.stream().anyMatch(sharers -> sharers.length > 1);
      if (lastShared != null && lastShared != share) {
        unit.counters.add(share ? "merges" : "splits", 1);
      }
      lastShared = share;
      if (share) {
        unit.counters.add("burstsShared", 1);
      }
      for (int[] sharers : plan) {
        if (sharers.length > 1) {
          new Graphlet(sharers).propagate();
        } else {
          for (Event e : burst) {
            if (members.get(sharers[0]).matches(e)) {
              runs[sharers[0]].onEvent(e);
            }
          }
        }
      }
      burst.clear();
    }

    private int[] allMembers() {
      int[] all = new int[members.size()];
      for (int m = 0; m < all.length; m++) {
        all[m] = m;
      }
      return all;
    }

    /**
     * The dynamic optimizer (Section 4): which queries share this burst, by Equation 8 with this
     * executor's terms. What flows into the burst from the rest of the graph is one graphlet-level
     * snapshot read from maintained sums ({@code 1 + c} reads per query, c nodes with constrained
     * edges), so an event of a shared graphlet visits only the earlier events of its burst ({@code
     * nShared = g/2}); an event-level snapshot reads the graphlet's earlier events for every query
     * ({@code g/2} each).
     *
     * <p>The search over query subsets (Figure 7) is pruned as in Theorems 4.1 and 4.2: queries
     * that accept exactly the same events of the burst introduce no snapshot among themselves, so
     * sharing within such a class always pays once it pays at all; what remains is to compare
     * sharing within the classes, sharing across all queries with event-level snapshots, and not
     * sharing. Returns the sets of member indices that share (singletons go alone).
     */
    private List<int[]> plan() {
      int k = members.size();
      int g = burst.size();
      Map<java.util.BitSet, List<Integer>> classes = new LinkedHashMap<>();
      for (int m = 0; m < k; m++) {
        java.util.BitSet accepted = new java.util.BitSet(g);
        for (int i = 0; i < g; i++) {
          if (members.get(m).matches(burst.get(i))) {
            accepted.set(i);
          }
        }
        classes.computeIfAbsent(accepted, x -> new ArrayList<>()).add(m);
      }
      int eventSnapshots = 0;
      for (Event e : burst) {
        if (!matchedByAll(e, allMembers()) && !matchedByNone(e, allMembers())) {
          eventSnapshots++;
        }
      }
      double n = 0;
      int constrained = 0;
      for (TrendRun run : runs) {
        n += run.size();
        constrained = Math.max(constrained, run.constrainedIntoShared());
      }
      n /= k;
      double alone = alone(1, g, n);
      double all =
          alone(k, g, n)
              - benefit(
                  k,
                  g,
                  n,
                  g / 2.0,
                  g,
                  1 + constrained + eventSnapshots * g / 2.0,
                  1 + eventSnapshots / 2.0);
      double byClass = 0;
      for (List<Integer> sameEvents : classes.values()) {
        int size = sameEvents.size();
        byClass +=
            size == 1
                ? alone
                : alone(size, g, n) - benefit(size, g, n, g / 2.0, g, 1 + constrained, 1);
      }
      if (all < byClass && all < k * alone) {
        unit.counters.add("planAll", 1);
        return List.of(allMembers());
      }
      unit.counters.add(byClass < k * alone ? "planByClass" : "planAlone", 1);
      List<int[]> plan = new ArrayList<>();
      for (List<Integer> sameEvents : classes.values()) {
        if (byClass < k * alone || sameEvents.size() == 1) {
          plan.add(sameEvents.stream().mapToInt(Integer::intValue).toArray());
        } else {
          sameEvents.forEach(m -> plan.add(new int[] {m}));
        }
      }
      return plan;
    }

    /** Equation 4 for a burst: k queries, each event visiting n predecessors. */
    private static double alone(int k, int g, double n) {
      double log = g > 1 ? Math.log(g) / Math.log(2) : 0;
      return (double) k * g * (log + n);
    }

    private boolean matchedByNone(Event e, int[] sharers) {
      for (int m : sharers) {
        if (members.get(m).matches(e)) {
          return false;
        }
      }
      return true;
    }

    private boolean matchedByAll(Event e, int[] sharers) {
      for (int m : sharers) {
        if (!members.get(m).matches(e)) {
          return false;
        }
      }
      return true;
    }

    /**
     * One shared graphlet: the burst's events with their aggregates as linear expressions over
     * snapshots. For snapshot v with per-query aggregates (count, events, sum):
     *
     * <pre>
     * count(e)  = Σ_v α[v]·count_v
     * events(e) = Σ_v α[v]·events_v + [X = E] Σ_v γ[v]·count_v
     * sum(e)    = Σ_v α[v]·sum_v    + [X = E] Σ_v σ_a[v]·count_v
     * </pre>
     *
     * where γ and σ_a account for the burst's own E events (X is the query's aggregated type).
     */
    private final class Graphlet {
      /** The members sharing the graphlet; arrays below are indexed by position in it. */
      private final int[] sharers;

      private final int k;

      /** snapshots.get(v)[m]: snapshot v's aggregates for member m. */
      private final List<Agg[]> snapshots = new ArrayList<>();

      private final int b = burst.size();
      private final BigInteger[][] alpha = new BigInteger[b][];
      private final BigInteger[][] gamma = new BigInteger[b][];
      private final BigDecimal[][][] sigma;
      private final Agg[][] evaluated = new Agg[b][];

      Graphlet(int[] sharers) {
        this.sharers = sharers;
        this.k = sharers.length;
        sigma = new BigDecimal[unit.summedAttributes.size()][b][];
      }

      void propagate() {
        Agg[] entry = new Agg[k];
        for (int m = 0; m < k; m++) {
          entry[m] = runs[sharers[m]].incomingShared(burst.get(0));
        }
        snapshots.add(entry);
        unit.counters.add("snapshots", 1);
        for (int i = 0; i < b; i++) {
          Event e = burst.get(i);
          if (matchedByAll(e, sharers)) {
            shareEvent(i, e);
          } else if (matchedByNone(e, sharers)) {
            skipEvent(i);
          } else {
            snapshotEvent(i, e);
          }
        }
        for (int m = 0; m < k; m++) {
          for (int i = 0; i < b; i++) {
            if (members.get(sharers[m]).matches(burst.get(i))) {
              runs[sharers[m]].addComputed(burst.get(i), evaluate(i, m));
            }
          }
        }
      }

      /** Propagates the expressions of the earlier burst events into this one, once for all. */
      private void shareEvent(int i, Event e) {
        int s = snapshots.size();
        BigInteger[] a = zeros(s);
        a[0] = BigInteger.ONE;
        BigInteger[] g = zeros(s);
        BigDecimal[][] sums = new BigDecimal[sigma.length][];
        for (int t = 0; t < sigma.length; t++) {
          sums[t] = decimalZeros(s);
        }
        long visited = 0;
        for (int j = 0; j < i && burst.get(j).time() < e.time(); j++) {
          visited++;
          addInto(a, alpha[j]);
          addInto(g, gamma[j]);
          for (int t = 0; t < sigma.length; t++) {
            addInto(sums[t], sigma[t][j]);
          }
        }
        unit.counters.add("edgesVisited", visited);
        addInto(g, a);
        for (int t = 0; t < sigma.length; t++) {
          Object value = e.attribute(unit.summedAttributes.get(t));
          if (value instanceof BigDecimal d) {
            for (int v = 0; v < s; v++) {
              sums[t][v] = sums[t][v].add(d.multiply(new BigDecimal(a[v])));
            }
          }
        }
        alpha[i] = a;
        gamma[i] = g;
        for (int t = 0; t < sigma.length; t++) {
          sigma[t][i] = sums[t];
        }
      }

      /** An event no sharer matches is in no trend of theirs: it contributes nothing. */
      private void skipEvent(int i) {
        alpha[i] = zeros(0);
        gamma[i] = zeros(0);
        for (int t = 0; t < sigma.length; t++) {
          sigma[t][i] = decimalZeros(0);
        }
      }

      /** An event whose predecessors differ between queries gets its own snapshot. */
      private void snapshotEvent(int i, Event e) {
        Agg[] values = new Agg[k];
        for (int m = 0; m < k; m++) {
          CompiledQuery q = members.get(sharers[m]);
          Agg value = new Agg();
          if (q.matches(e)) {
            value.add(snapshots.get(0)[m]);
            for (int j = 0; j < i && burst.get(j).time() < e.time(); j++) {
              value.add(evaluate(j, m));
            }
            q.extend(value, e);
          }
          values[m] = value;
        }
        snapshots.add(values);
        unit.counters.add("snapshots", 1);
        unit.counters.add("eventSnapshots", 1);
        int s = snapshots.size();
        alpha[i] = zeros(s);
        alpha[i][s - 1] = BigInteger.ONE;
        gamma[i] = zeros(s);
        for (int t = 0; t < sigma.length; t++) {
          sigma[t][i] = decimalZeros(s);
        }
      }

      /** Burst event i's aggregates for member m. */
      private Agg evaluate(int i, int m) {
        if (evaluated[i] == null) {
          evaluated[i] = new Agg[k];
        }
        Agg cached = evaluated[i][m];
        if (cached != null) {
          return cached;
        }
        CompiledQuery q = members.get(sharers[m]);
        boolean own = q.isAggregated(unit.type);
        String attribute = q.query.aggregation().attribute();
        int t = own && attribute != null ? unit.summedAttributes.indexOf(attribute) : -1;
        Agg value = new Agg();
        for (int v = 0; v < alpha[i].length; v++) {
          Agg snapshot = snapshots.get(v)[m];
          if (alpha[i][v].signum() != 0) {
            BigInteger c = alpha[i][v];
            value.count = value.count.add(c.multiply(snapshot.count));
            value.events = value.events.add(c.multiply(snapshot.events));
            value.sum = value.sum.add(new BigDecimal(c).multiply(snapshot.sum));
          }
          if (own) {
            value.events = value.events.add(gamma[i][v].multiply(snapshot.count));
            if (t >= 0) {
              value.sum = value.sum.add(sigma[t][i][v].multiply(new BigDecimal(snapshot.count)));
            }
          }
        }
        evaluated[i][m] = value;
        return value;
      }

      private static BigInteger[] zeros(int n) {
        BigInteger[] a = new BigInteger[n];
        java.util.Arrays.fill(a, BigInteger.ZERO);
        return a;
      }

      private static BigDecimal[] decimalZeros(int n) {
        BigDecimal[] a = new BigDecimal[n];
        java.util.Arrays.fill(a, BigDecimal.ZERO);
        return a;
      }

      /** into += from, where from may be shorter (snapshots created after it are 0 in it). */
      private static void addInto(BigInteger[] into, BigInteger[] from) {
        for (int v = 0; v < from.length; v++) {
          if (from[v].signum() != 0) {
            into[v] = into[v].add(from[v]);
          }
        }
      }

      private static void addInto(BigDecimal[] into, BigDecimal[] from) {
        for (int v = 0; v < from.length; v++) {
          if (from[v].signum() != 0) {
            into[v] = into[v].add(from[v]);
          }
        }
      }
    }
  }
}
