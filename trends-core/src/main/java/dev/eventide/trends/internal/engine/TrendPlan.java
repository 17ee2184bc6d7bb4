package dev.eventide.trends.internal.engine;

import dev.eventide.trends.Event;
import dev.eventide.trends.Sharing;
import dev.eventide.trends.query.Workload;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A workload compiled for incremental evaluation: the immutable half of the executor (the model is
 * Flink CEP's {@code NFA} apart from its per-key {@code NFAState}). It splits the workload into
 * sharing units — queries sharing a Kleene sub-pattern {@code E+} ({@link SharingAnalysis}) or a
 * query alone — and advances a {@link TrendState} per (unit, partition) by the events of one
 * timestamp at a time, in non-decreasing time order; {@link #closeWindows} returns the results of
 * the windows that end by a time.
 *
 * <p>Cost (n events per window, k queries, WITHIN/SLIDE = s open windows per event): every query
 * keeps its trend prefixes as a few running sums per window, so an event costs each query that
 * reads its type O(s) additions, independent of n — O(s · log n) for a type with one {@code E.a op
 * NEXT(E).b} predicate (an ordered index), O(s · n) with several (a scan: the one super-linear
 * case). Numbers are exact, so an addition costs in proportion to the numbers' size: trend counts
 * over a burst of b events have about b bits. Within a sharing unit, a burst of E events is
 * buffered and, for each class of queries that accept the same events, either evaluated once as a
 * shared linear map ({@link BurstMap}) or event by event per query, as the benefit model decides
 * ({@link Sharing#DYNAMIC}) or always shared ({@link Sharing#STATIC}). A query does not apply a
 * shared map to its sums at once: it composes the maps of consecutive bursts with the inflow of
 * their moment ({@link QueryPlan#defer}, a few multiplications of numbers of a few words per burst)
 * and applies the composite when its sums are read or the composite's coefficients reach {@link
 * QueryPlan#DEFERRED_BITS}. Over a window whose sums grow to N bits, a query's passes over them
 * then cost about N²/8192 word products per component, where a pass per burst of b bits costs
 * N²/(128·b): 64/b times more (each read of the sums between bursts, by an event whose transitions
 * need them, costs one pass more). This is what remains super-linear in n on long bursty windows:
 * exact counts of exponentially many trends have about as many bits as the window has events of the
 * Kleene type.
 */
public final class TrendPlan {

  // Costs of the benefit model, in nanoseconds as measured on a 2-core machine by `eventide bench
  // trend-bursts` (docs/benchmarks.md, "Sharing decided per burst"): per event and query alone
  // (unshared: about 300 ns on small numbers), per 64-bit word of an exact addition, per burst and
  // class shared (the class, the map and its coefficients: a shared burst of one or two events
  // costs about 1 µs more than two queries evaluating it alone), per timestamp group of a shared
  // map and component, per application of a map to one query in one window.
  private static final double EVENT_COST = 300;
  private static final double WORD_COST = 1.5;
  private static final double CLASS_COST = 800;
  private static final double GROUP_COST = 100;
  private static final double APPLY_COST = 250;

  private final Workload workload;
  private final List<QueryPlan> queries;
  private final List<Unit> units;
  private final Sharing sharing;

  /** One sharing unit: its members, and for each event type the members that read it. */
  static final class Unit {
    final int index;
    final List<QueryPlan> members;
    final List<String> partitionAttributes;
    final long within;
    final long slide;
    final SlidingWindows windows;

    /** The shared Kleene type, or null for a query alone. */
    final String sharedType;

    final Map<String, int[]> readers = new HashMap<>();

    /**
     * For the shared type: each member's index among the distinct predicate lists on it, so that a
     * burst's events are tested once per list, not once per query.
     */
    final int[] filterOf;

    final int filters;

    Unit(int index, List<QueryPlan> members, String sharedType) {
      this.index = index;
      this.members = List.copyOf(members);
      this.sharedType = sharedType;
      CompiledQuery first = members.get(0).compiled;
      this.partitionAttributes = first.partitionAttributes;
      this.within = first.query.within();
      this.slide = first.query.slide();
      this.windows = SlidingWindows.of(within, slide);
      Map<String, List<Integer>> byType = new LinkedHashMap<>();
      for (int m = 0; m < members.size(); m++) {
        for (String type : members.get(m).compiled.types) {
          byType.computeIfAbsent(type, t -> new ArrayList<>()).add(m);
        }
      }
      byType.forEach((t, ms) -> readers.put(t, ms.stream().mapToInt(Integer::intValue).toArray()));
      this.filterOf = new int[members.size()];
      Map<List<?>, Integer> distinct = new HashMap<>();
      if (sharedType != null) {
        for (int m = 0; m < members.size(); m++) {
          List<?> predicates = members.get(m).compiled.eventPredicates(sharedType);
          filterOf[m] = distinct.computeIfAbsent(predicates, p -> distinct.size());
        }
      }
      this.filters = distinct.size();
    }
  }

  /** For each event type, the units that read it (routing would otherwise visit every unit). */
  private final Map<String, List<Unit>> unitsReading = new HashMap<>();

  /** Per unit, its queries' names in workload order (asked per event by keyed runners). */
  private final List<List<String>> unitQueryNames = new ArrayList<>();

  private TrendPlan(Workload workload, List<QueryPlan> queries, List<Unit> units, Sharing sharing) {
    this.workload = workload;
    this.queries = queries;
    this.units = units;
    this.sharing = sharing;
    for (Unit u : units) {
      unitQueryNames.add(u.members.stream().map(QueryPlan::name).toList());
      u.readers
          .keySet()
          .forEach(t -> unitsReading.computeIfAbsent(t, k -> new ArrayList<>()).add(u));
    }
  }

  /**
   * Returns the plan of a workload.
   *
   * @throws IllegalArgumentException naming the query whose automaton is too large
   */
  public static TrendPlan compile(Workload workload, Sharing sharing) {
    List<CompiledQuery> compiled = CompiledQuery.compile(workload.queries());
    List<QueryPlan> queries = compiled.stream().map(QueryPlan::new).toList();
    List<Unit> units = new ArrayList<>();
    Set<Integer> shared = new HashSet<>();
    if (sharing != Sharing.NONE) {
      for (SharingAnalysis.ShareGroup group : SharingAnalysis.shareGroups(compiled)) {
        List<QueryPlan> members = group.members().stream().map(q -> queries.get(q.index)).toList();
        units.add(new Unit(units.size(), members, group.type()));
        group.members().forEach(q -> shared.add(q.index));
      }
    }
    for (QueryPlan q : queries) {
      if (!shared.contains(q.compiled.index)) {
        units.add(new Unit(units.size(), List.of(q), null));
      }
    }
    return new TrendPlan(workload, queries, List.copyOf(units), sharing);
  }

  public Sharing sharing() {
    return sharing;
  }

  /** The workload this plan evaluates. */
  public Workload workload() {
    return workload;
  }

  /** The number of sharing units. */
  public int unitCount() {
    return units.size();
  }

  List<QueryPlan> queries() {
    return queries;
  }

  Unit unit(int index) {
    return units.get(index);
  }

  /** The WITHIN of a unit's queries (all members of a unit share their windows), in ms. */
  public long within(int unit) {
    return units.get(unit).within;
  }

  /** The SLIDE of a unit's queries, in ms. */
  public long slide(int unit) {
    return units.get(unit).slide;
  }

  /** The windows of the unit's queries (a unit's members share WITHIN and SLIDE). */
  public SlidingWindows windows(int unit) {
    return units.get(unit).windows;
  }

  /** The names of a unit's queries, in workload order. */
  public List<String> queryNames(int unit) {
    return unitQueryNames.get(unit);
  }

  /**
   * The GROUPBY values a route's partition starts with: the partitions of one group are combined
   * into its results ({@link WindowResult#combine}).
   */
  public List<Object> group(Route route) {
    int size = units.get(route.unit()).members.get(0).compiled.query.groupBy().size();
    return route.partition().subList(0, size);
  }

  /**
   * The result of a query over a window and group without trends: COUNT 0, SUM 0, AVG, MIN and MAX
   * null. {@link #closeWindows} omits such results; a caller that re-evaluates a window after it
   * emitted a result needs one when the window has lost its trends (a late negated event).
   */
  public WindowResult noTrends(String query, List<Object> group, long windowStart, long windowEnd) {
    for (QueryPlan q : queries) {
      if (q.name().equals(query)) {
        return new WindowResult(q, group, windowStart, windowEnd, TrendSums.empty(q.shape));
      }
    }
    throw new IllegalArgumentException("no query '" + query + "' in this plan");
  }

  /** A unit that reads an event, with the event's partition in that unit. */
  public record Route(int unit, List<Object> partition) {}

  /**
   * The units that read the event's type, each with the event's partition key (numbers normalised,
   * so {@code 1.0} and {@code 1} are one partition). An event lacking a partition attribute is in
   * no partition of that unit (the schema check of the input rules that out).
   */
  public List<Route> route(Event e) {
    List<Unit> readers = unitsReading.getOrDefault(e.type(), List.of());
    List<Route> routes = new ArrayList<>(readers.size());
    for (Unit u : readers) {
      List<Object> key = partitionKey(e, u.partitionAttributes);
      if (key != null) {
        routes.add(new Route(u.index, key));
      }
    }
    return routes;
  }

  /**
   * The event's partition in a unit, or null if the event lacks a partition attribute. The unit
   * must read the event's type ({@link #route}).
   */
  public List<Object> partition(int unit, Event e) {
    return partitionKey(e, units.get(unit).partitionAttributes);
  }

  /** A new, empty state for a unit and partition. */
  public TrendState newState(int unit, List<Object> partition) {
    if (unit < 0 || unit >= units.size()) {
      throw new IllegalArgumentException("no unit " + unit + " in a plan of " + units.size());
    }
    return new TrendState(unit, partition);
  }

  /**
   * Advances the state by events of its unit and partition, in non-decreasing time order across
   * calls; events of types the unit does not read are ignored.
   *
   * @throws IllegalArgumentException if an event is earlier than one advanced before, or earlier
   *     than a time windows were closed up to, or so close to the ends of the {@code long} range
   *     that its windows cannot be represented
   */
  public void advance(TrendState state, List<Event> events, Counters counters) {
    Unit u = units.get(state.unit);
    for (Event e : events) {
      long t = e.time();
      if (t < state.lastTime) {
        throw new IllegalArgumentException(
            "events must be advanced in time order, but "
                + e
                + " came after time "
                + state.lastTime);
      }
      if (t < state.closedUpTo) {
        throw new IllegalArgumentException(
            "event "
                + e
                + " is earlier than "
                + state.closedUpTo
                + ", up to which windows are closed");
      }
      int[] readers = u.readers.get(e.type());
      if (readers == null) {
        continue;
      }
      state.lastTime = t;
      openWindows(state, u, t);
      if (e.type().equals(u.sharedType)) {
        if (!state.burst.isEmpty() && !sameWindows(u, state.burst.get(0).time(), t)) {
          flushBurst(state, u, counters, t);
        }
        state.burst.add(e);
        continue;
      }
      flushBurst(state, u, counters, t);
      for (TrendState.WindowState w : state.windows) {
        if (w.start <= t && t < w.end) {
          for (int m : readers) {
            if (!state.isRetired(m)) {
              u.members.get(m).onEvent(w.members[m], e);
            }
          }
        }
      }
    }
  }

  /**
   * Closes the windows of the state that end at or before {@code upTo} and returns their results
   * (one per query and window with at least one trend; the group of a query with equivalence
   * attributes may have more from other partitions, see {@link WindowResult#combine}). Events
   * earlier than {@code upTo} may not be advanced afterwards.
   */
  public List<WindowResult> closeWindows(TrendState state, long upTo, Counters counters) {
    Unit u = units.get(state.unit);
    state.closedUpTo = Math.max(state.closedUpTo, upTo);
    List<WindowResult> results = new ArrayList<>();
    if (state.windows.isEmpty() || state.windows.peekFirst().end > upTo) {
      return results;
    }
    flushBurst(state, u, counters, upTo);
    while (!state.windows.isEmpty() && state.windows.peekFirst().end <= upTo) {
      TrendState.WindowState w = state.windows.pollFirst();
      for (int m = 0; m < u.members.size(); m++) {
        if (state.isRetired(m)) {
          continue;
        }
        QueryPlan q = u.members.get(m);
        TrendSums sums = q.close(w.members[m]);
        if (!sums.isEmpty()) {
          List<Object> group = state.partition.subList(0, q.compiled.query.groupBy().size());
          results.add(new WindowResult(q, group, w.start, w.end, sums));
        }
      }
      counters.add("windowsClosed", 1);
    }
    return results;
  }

  /** The end of the state's earliest open window ({@link Long#MAX_VALUE} if none). */
  public long nextWindowEnd(TrendState state) {
    return state.nextWindowEnd();
  }

  /**
   * Whether a state of the unit whose windows start in [from, until) has a window holding time t:
   * whether an event at t concerns it.
   */
  public boolean hasWindow(int unit, long t, long from, long until) {
    return hasWindow(unit, t, from, until, Long.MAX_VALUE);
  }

  /** {@link #hasWindow(int, long, long, long)}, of the windows that also end by {@code lastEnd}. */
  public boolean hasWindow(int unit, long t, long from, long until, long lastEnd) {
    SlidingWindows windows = units.get(unit).windows;
    long k = Math.max(windows.firstIndex(t), windows.firstStartingAtOrAfter(from));
    return k <= windows.lastIndex(t) && windows.start(k) < until && windows.end(k) <= lastEnd;
  }

  /**
   * Limits the windows the state opens to those starting in [from, until): a version of a changing
   * workload evaluates the windows that start while it is in force. Windows already open stay open.
   */
  public void limitWindows(TrendState state, long from, long until) {
    state.windowsFrom = from;
    state.windowsUntil = until;
  }

  /**
   * Removes a query from the state: its sums go at once and its windows give no results. Returns
   * whether the state's unit had the query. A state left with no query of its unit is emptied.
   */
  public boolean retire(TrendState state, String query) {
    Unit u = units.get(state.unit);
    int member = -1;
    for (int m = 0; m < u.members.size(); m++) {
      if (u.members.get(m).name().equals(query)) {
        member = m;
      }
    }
    if (member < 0 || state.isRetired(member)) {
      return false;
    }
    if (state.retired == null) {
      state.retired = new BitSet(u.members.size());
    }
    state.retired.set(member);
    for (TrendState.WindowState w : state.windows) {
      w.members[member] = null;
    }
    if (state.retired.cardinality() == u.members.size()) {
      state.windows.clear();
      state.burst.clear();
    }
    return true;
  }

  /** The readers among the state's members not retired (the array itself when none is). */
  private static int[] live(TrendState state, int[] readers) {
    if (state.retired == null) {
      return readers;
    }
    return Arrays.stream(readers).filter(m -> !state.isRetired(m)).toArray();
  }

  /** Opens the windows containing time t that are not open yet (starts only grow with time). */
  private static void openWindows(TrendState state, Unit u, long t) {
    long first = u.windows.firstIndex(t);
    long last = u.windows.lastIndex(t);
    if (!state.windows.isEmpty()) {
      first = Math.max(first, u.windows.lastIndex(state.windows.peekLast().start) + 1);
    }
    if (state.windowsFrom != Long.MIN_VALUE) {
      first = Math.max(first, u.windows.firstStartingAtOrAfter(state.windowsFrom));
    }
    if (state.windowsUntil != Long.MAX_VALUE) {
      last = Math.min(last, u.windows.firstStartingAtOrAfter(state.windowsUntil) - 1);
    }
    for (long k = first; k <= last; k++) {
      if (!u.windows.isExact(k)) {
        throw new IllegalArgumentException(
            "time "
                + t
                + " is too close to the end of the long range for a window of "
                + u.within
                + " ms sliding by "
                + u.slide
                + " ms");
      }
      state.windows.addLast(
          new TrendState.WindowState(u.windows.start(k), u.windows.end(k), u.members.size()));
    }
  }

  private static boolean sameWindows(Unit u, long a, long b) {
    return u.windows.lastIndex(a) == u.windows.lastIndex(b)
        && u.windows.firstIndex(a) == u.windows.firstIndex(b);
  }

  /**
   * Evaluates the buffered burst of the unit's shared type (HAMLET's graphlet). {@code next} is the
   * earliest time a later event may have: if it is later than the burst's last event, the burst's
   * prefixes need not wait as pending.
   */
  private void flushBurst(TrendState state, Unit u, Counters counters, long next) {
    if (state.burst.isEmpty()) {
      return;
    }
    List<Event> burst = new ArrayList<>(state.burst);
    state.burst.clear();
    long t0 = burst.get(0).time();
    List<TrendState.WindowState> windows = new ArrayList<>();
    for (TrendState.WindowState w : state.windows) {
      if (w.start <= t0 && t0 < w.end) {
        windows.add(w);
      }
    }
    counters.add("bursts", 1);
    counters.add("burstEvents", burst.size());
    int[] readers = live(state, u.readers.get(u.sharedType));
    if (readers.length == 0) {
      return;
    }
    boolean dynamic = sharing == Sharing.DYNAMIC;
    int bits = dynamic ? bitsOf(u, readers[0], windows) : 0;
    if (dynamic && !share(u, readers.length, readers[0], burst, windows.size(), bits)) {
      // Not worth sharing even if every reader accepted every event (classes only make it less
      // so): evaluate it alone without forming classes.
      counters.add("splitBursts", 1);
      evaluateAlone(u, readers, burst, windows);
      return;
    }
    BitSet[] acceptedBy = new BitSet[u.filters];
    Map<BitSet, List<Integer>> classes = new LinkedHashMap<>();
    for (int m : readers) {
      BitSet accepted = acceptedBy[u.filterOf[m]];
      if (accepted == null) {
        CompiledQuery q = u.members.get(m).compiled;
        accepted = new BitSet(burst.size());
        for (int i = 0; i < burst.size(); i++) {
          if (q.matches(burst.get(i))) {
            accepted.set(i);
          }
        }
        acceptedBy[u.filterOf[m]] = accepted;
      }
      classes.computeIfAbsent(accepted, a -> new ArrayList<>()).add(m);
    }
    boolean shared = false;
    boolean split = classes.size() > 1;
    for (var c : classes.entrySet()) {
      List<Event> accepted = c.getKey().stream().mapToObj(burst::get).toList();
      if (accepted.isEmpty()) {
        continue;
      }
      List<Integer> members = c.getValue();
      // One class of every reader and event was just judged worth sharing.
      boolean whole = members.size() == readers.length && accepted.size() == burst.size();
      if (!dynamic
          || whole
          || share(u, members.size(), members.get(0), accepted, windows.size(), bits)) {
        shareBurst(u, members, accepted, windows, next > burst.get(burst.size() - 1).time());
        counters.add("snapshots", windows.size());
        shared = true;
      } else {
        split = true;
        for (Event e : accepted) {
          for (TrendState.WindowState w : windows) {
            for (int m : members) {
              u.members.get(m).onEvent(w.members[m], e);
            }
          }
        }
      }
    }
    if (shared) {
      counters.add("sharedBursts", 1);
    }
    if (split) {
      counters.add("splitBursts", 1);
    }
  }

  /** Feeds each event of a burst to every reader that accepts it, in every window. */
  private static void evaluateAlone(
      Unit u, int[] readers, List<Event> burst, List<TrendState.WindowState> windows) {
    byte[] accepts = new byte[u.filters]; // per filter: 0 not tested yet, 1 accepts, 2 rejects
    for (Event e : burst) {
      Arrays.fill(accepts, (byte) 0);
      for (int m : readers) {
        QueryPlan q = u.members.get(m);
        int f = u.filterOf[m];
        if (accepts[f] == 0) {
          accepts[f] = q.compiled.matches(e) ? (byte) 1 : (byte) 2;
        }
        if (accepts[f] == 1) {
          for (TrendState.WindowState w : windows) {
            q.onEvent(w.members[m], e);
          }
        }
      }
    }
  }

  /**
   * The benefit model (HAMLET Equation 8, re-derived for running sums): evaluated alone, every
   * query pays per window and event a fixed step and additions of numbers of the current size;
   * shared, the class pays a fixed cost and the map's coefficients once per timestamp group, and
   * each query a fixed step to compose the burst into its deferred bursts and its share of the pass
   * that applies them (b bits of coefficient, {@link QueryPlan#defer}). Evaluating a burst alone
   * also makes the query apply what it had deferred. So short bursts of small numbers for small
   * classes are evaluated alone, and bursts over long sums are shared.
   */
  private static boolean share(
      Unit u, int members, int firstMember, List<Event> accepted, int windows, int bits) {
    int groups = 1;
    for (int i = 1; i < accepted.size(); i++) {
      if (accepted.get(i).time() != accepted.get(i - 1).time()) {
        groups++;
      }
    }
    QueryPlan q = u.members.get(firstMember);
    int components = 1 + (q.shape.events() ? 1 : 0) + (q.shape.sum() ? 1 : 0);
    return benefit(members, windows, accepted.size(), groups, bits, components) > 0;
  }

  /** Bits of the first reader's sums the burst extends: the size of the numbers a burst adds. */
  private static int bitsOf(Unit u, int reader, List<TrendState.WindowState> windows) {
    if (windows.isEmpty()) {
      return 0;
    }
    QueryPlan q = u.members.get(reader);
    QueryWindow w = windows.get(0).members[reader];
    QueryWindow.Bucket fresh = w.bucket(q.compiled.statesOf(u.sharedType), 0);
    return (fresh == null ? 0 : fresh.total.count.bitLength()) + QueryPlan.deferredBits(w);
  }

  static double benefit(
      int queries, int windows, int events, int groups, int bits, int components) {
    double words = 1 + bits / 64.0;
    // Alone, an event copies the sums it reads, adds them and later adds the result: about four
    // passes over numbers of the current size, plus allocation.
    double alone =
        queries * windows * (double) events * (EVENT_COST + 4 * WORD_COST * words * components);
    // Shared, a query composes the burst into its deferred bursts (a fixed cost) and later scales
    // its sums by the composite, whose words hold the coefficients of about 64 events each: its
    // share of that pass is `events` bits of coefficient, not a word per burst.
    double coefficientWords = events / 64.0;
    double together =
        CLASS_COST
            + groups * GROUP_COST * components
            + queries
                * windows
                * (APPLY_COST + 2 * WORD_COST * words * coefficientWords * components);
    return alone - together;
  }

  private static void shareBurst(
      Unit u,
      List<Integer> members,
      List<Event> accepted,
      List<TrendState.WindowState> windows,
      boolean timeMovesOn) {
    String type = u.sharedType;
    List<Long> times = new ArrayList<>();
    List<Long> sizes = new ArrayList<>();
    for (Event e : accepted) {
      if (times.isEmpty() || times.get(times.size() - 1) != e.time()) {
        times.add(e.time());
        sizes.add(0L);
      }
      sizes.set(sizes.size() - 1, sizes.get(sizes.size() - 1) + 1);
    }
    List<QueryPlan> plans = members.stream().map(u.members::get).toList();
    List<String> attributes = BurstMap.summedAttributes(plans, type);
    Map<String, ExactDecimal[]> attributeSums = new LinkedHashMap<>();
    for (String a : attributes) {
      ExactDecimal[] perGroup = new ExactDecimal[times.size()];
      int g = -1;
      long previous = 0;
      for (Event e : accepted) {
        if (g < 0 || e.time() != previous) {
          perGroup[++g] = new ExactDecimal();
          previous = e.time();
        }
        perGroup[g].add(ExactDecimal.of((BigDecimal) e.attribute(a)));
      }
      attributeSums.put(a, perGroup);
    }
    long[] allSizes = sizes.stream().mapToLong(Long::longValue).toArray();
    BurstMap fromFirst = BurstMap.of(allSizes, attributeSums, !timeMovesOn);
    BurstMap firstApart = null;
    BurstMap fromSecond = null;
    for (TrendState.WindowState w : windows) {
      for (int m : members) {
        QueryPlan q = u.members.get(m);
        QueryWindow qw = w.members[m];
        BurstMap map = fromFirst;
        long from = times.get(0);
        q.touch(qw, from, false);
        if (q.keptApartAt(qw, from) || (qw.hasPending() && qw.pendingTime == from)) {
          // What the first group reads must not include what is pending at its own time, nor a
          // group kept apart at that time: it is kept apart too (joining that group), and the next
          // touch at a later time composes it with the inflow of that moment, before what is
          // pending joins the sums.
          if (firstApart == null) {
            firstApart =
                BurstMap.of(Arrays.copyOfRange(allSizes, 0, 1), groups(attributeSums, 0, 1), true);
          }
          q.deferApart(qw, type, firstApart, from);
          if (times.size() == 1) {
            continue;
          }
          if (fromSecond == null) {
            fromSecond =
                BurstMap.of(
                    Arrays.copyOfRange(allSizes, 1, allSizes.length),
                    groups(attributeSums, 1, allSizes.length),
                    !timeMovesOn);
          }
          map = fromSecond;
          from = times.get(1);
          q.touch(qw, from);
        }
        q.flushBefore(qw, from);
        q.defer(qw, type, map, times.get(times.size() - 1));
      }
    }
  }

  /** The per-group attribute sums of groups [from, to). */
  private static Map<String, ExactDecimal[]> groups(
      Map<String, ExactDecimal[]> sums, int from, int to) {
    Map<String, ExactDecimal[]> out = new LinkedHashMap<>();
    sums.forEach((a, s) -> out.put(a, Arrays.copyOfRange(s, from, to)));
    return out;
  }

  /** The event's values of the attributes, numbers normalised; null if one is missing. */
  static List<Object> partitionKey(Event e, List<String> attributes) {
    return WindowedEngine.partitionKey(e, attributes);
  }
}
