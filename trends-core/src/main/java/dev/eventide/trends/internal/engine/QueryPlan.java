package dev.eventide.trends.internal.engine;

import dev.eventide.trends.Event;
import dev.eventide.trends.query.Predicate;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One query compiled for the incremental executor: its automaton read as running sums. A trend
 * prefix is summarised by the set of automaton states it may be in (so that an ambiguous pattern
 * still counts every trend once) and by the negated types seen since its last event that matter to
 * those states; prefixes alike in both share one running sum, a {@link QueryWindow.Bucket}. A new
 * event then costs one addition per bucket whose states have a transition on its type, whatever the
 * number of earlier events; a matching negated event moves the buckets it cuts off.
 *
 * <p>Immutable, apart from memos of what each state set allows, filled on first use, identical on
 * every JVM and safe to share between threads.
 */
final class QueryPlan {
  final CompiledQuery compiled;
  final TrendSums.Shape shape;
  private final ConcurrentHashMap<Long, SetInfo> infos = new ConcurrentHashMap<>();

  QueryPlan(CompiledQuery compiled) {
    this.compiled = compiled;
    this.shape = compiled.shape;
  }

  String name() {
    return compiled.query.name();
  }

  SetInfo info(long set) {
    SetInfo info = infos.get(set);
    return info != null ? info : infos.computeIfAbsent(set, s -> new SetInfo(this, s));
  }

  /**
   * An answer of {@link #startSet} or {@link SetInfo#next}, with the masks it was asked with: both
   * are pure functions of masks a stream asks with few distinct values, once or more per event.
   * Immutable, so that a plan shared by threads reads a whole entry or another, never a torn one.
   */
  private record Answer(long candidates, long negated, long states) {}

  // The last start sets asked, replaced in turn (more than one call site asks per event).
  private static final int START_MEMO = 4;
  private final Answer[] startAnswers = new Answer[START_MEMO];
  private int nextStartAnswer;

  /** The states a trend starting with an event among {@code candidates} may be in. */
  long startSet(long candidates, long windowNegated) {
    for (Answer a : startAnswers) {
      if (a != null && a.candidates == candidates && a.negated == windowNegated) {
        return a.states;
      }
    }
    Answer a = new Answer(candidates, windowNegated, computeStartSet(candidates, windowNegated));
    // A race on the slot only changes which answer is replaced.
    int slot = nextStartAnswer;
    nextStartAnswer = (slot + 1) % START_MEMO;
    startAnswers[slot] = a;
    return a.states;
  }

  private long computeStartSet(long candidates, long windowNegated) {
    long states = 0;
    for (long s = candidates; s != 0; s &= s - 1) {
      int state = Long.numberOfTrailingZeros(s);
      if (anyPasses(compiled.automaton.start(state), windowNegated, false)) {
        states |= 1L << state;
      }
    }
    return states;
  }

  static boolean anyPasses(List<Constraint> alternatives, long negated, boolean adjacentHolds) {
    for (Constraint c : alternatives) {
      if ((c.notMask() & negated) == 0 && (!c.adjacent() || adjacentHolds)) {
        return true;
      }
    }
    return false;
  }

  /** Extends prefixes by an event, if it is of the aggregated type. */
  void extend(TrendSums sums, Event e) {
    compiled.extend(sums, e);
  }

  /**
   * Advances the query's state in one window by one event (of any type the unit reads). Reads the
   * buckets as they were before the event's timestamp; what the event adds waits in {@link
   * QueryWindow#pending} until time moves on.
   *
   * @return whether the query matched the event
   */
  boolean onEvent(QueryWindow w, Event e) {
    if (!compiled.matches(e)) {
      return false;
    }
    long candidates = compiled.statesOf(e.type());
    // A group kept apart at this very time stays deferred unless the event reads the sums (below).
    touch(w, e.time(), false);
    flushBefore(w, e.time());
    w.pendingTime = e.time();
    w.pendingNegated |= compiled.negatedBit(e.type());
    if (candidates == 0) {
      return true;
    }
    Incoming in = new Incoming();
    long start = startSet(candidates, w.windowNegated);
    if (start != 0) {
      in.add(start, TrendSums.one(shape));
    }
    if ((candidates & compiled.statesWithPredecessors()) != 0) {
      long tapped = tappedSet(w, candidates, e);
      if (tapped == 0) {
        settle(w);
      }
      for (QueryWindow.Bucket b : w.buckets) {
        SetInfo info = b.info;
        if ((info.targets & candidates) == 0
            || (tapped != 0 && info.set == w.deferred.states && b.negated == 0)) {
          continue;
        }
        long unless = info.next(candidates, b.negated, false);
        long holds = b.index == null ? unless : info.next(candidates, b.negated, true);
        if (holds == unless) {
          if (holds != 0) {
            in.add(holds, b.total);
          }
        } else {
          TrendSums yes = TrendSums.empty(shape);
          TrendSums no = TrendSums.empty(shape);
          b.index.split(e, yes, no);
          if (holds != 0 && !yes.isEmpty()) {
            in.add(holds, yes);
          }
          if (unless != 0 && !no.isEmpty()) {
            in.add(unless, no);
          }
        }
      }
      if (tapped != 0) {
        w.deferred.tap(bucketFor(w, tapped, 0).total);
      }
    }
    for (int i = 0; i < in.size; i++) {
      TrendSums value = in.sums[i];
      extend(value, e);
      SetInfo info = info(in.sets[i]);
      Object key = info.indexed ? AdjacencyIndex.keyOf(info.predicates, e) : null;
      w.pending.add(new QueryWindow.Pending(in.sets[i], value, key));
    }
    return true;
  }

  /**
   * The state set the deferred sum F flows into on this event, when that read may wait until F is
   * next settled ({@link DeferredBursts#tap}); 0 when F must be settled first. It may wait when F's
   * prefixes all move to one set that nothing reads before the window closes — no transition out of
   * it, no negated type that cuts it, no index — and the event does not extend them (it is not of
   * the aggregated type): then F's part can join that bucket late, as the same linear function of
   * F. An end event after a shared burst is the usual case: settling F for it would cost a pass
   * over F's long sums per end event.
   */
  private long tappedSet(QueryWindow w, long candidates, Event e) {
    DeferredBursts deferred = w.deferred;
    // A group kept apart is at this event's own time (touch folded an earlier one): not read.
    if (deferred == null || compiled.isAggregated(e.type())) {
      return 0;
    }
    QueryWindow.Bucket f = w.bucket(deferred.states, 0);
    if (f == null || f.index != null || (f.info.targets & candidates) == 0) {
      return 0;
    }
    long next = f.info.next(candidates, 0, false);
    if (next == 0) {
      return 0;
    }
    SetInfo into = info(next);
    return into.targets == 0 && into.relevant == 0 && !into.indexed ? next : 0;
  }

  /** Sums grouped by the state set they lead to (few: usually one). */
  private final class Incoming {
    long[] sets = new long[2];
    TrendSums[] sums = new TrendSums[2];
    int size;

    void add(long set, TrendSums value) {
      for (int i = 0; i < size; i++) {
        if (sets[i] == set) {
          sums[i].add(value);
          return;
        }
      }
      if (size == sets.length) {
        sets = java.util.Arrays.copyOf(sets, size * 2);
        sums = java.util.Arrays.copyOf(sums, size * 2);
      }
      sets[size] = set;
      TrendSums copy = TrendSums.empty(shape);
      copy.add(value);
      sums[size++] = copy;
    }
  }

  /** Lets the pending additions join the buckets if they are older than {@code time}. */
  void flushBefore(QueryWindow w, long time) {
    if (time > w.pendingTime && w.hasPending()) {
      flush(w);
    }
  }

  /** The pending negated types cut the buckets, then the pending prefixes join theirs. */
  void flush(QueryWindow w) {
    if (w.deferred != null && (w.pendingNegated != 0 || joinsDeferred(w))) {
      settle(w);
    }
    long negated = w.pendingNegated;
    if (negated != 0) {
      w.windowNegated |= negated;
      List<QueryWindow.Bucket> buckets = new java.util.ArrayList<>(w.buckets);
      w.buckets.clear();
      for (QueryWindow.Bucket b : buckets) {
        long moved = b.negated | (negated & b.info.relevant);
        QueryWindow.Bucket into = w.bucket(b.info.set, moved);
        if (into == null) {
          b.negated = moved;
          w.buckets.add(b);
        } else {
          merge(b, into);
        }
      }
      w.pendingNegated = 0;
    }
    for (QueryWindow.Pending p : w.pending) {
      QueryWindow.Bucket b = bucketFor(w, p.set(), 0);
      b.total.add(p.value());
      if (b.index != null) {
        b.index.insert(p.key(), p.value());
      }
    }
    w.pending.clear();
  }

  /**
   * What flows into the E state {@code sE} from elsewhere: a new trend, if E may start one, and the
   * buckets other than E's own ({@code fresh}, possibly null) with a transition to E.
   */
  private TrendSums inflow(QueryWindow w, long sE, QueryWindow.Bucket fresh) {
    TrendSums x = TrendSums.empty(shape);
    if (startSet(sE, w.windowNegated) != 0) {
      x.count.add(1);
    }
    for (QueryWindow.Bucket b : w.buckets) {
      if (b != fresh && (b.info.targets & sE) != 0 && b.info.next(sE, b.negated, false) != 0) {
        x.add(b.total);
      }
    }
    return x;
  }

  /**
   * Records a burst of the shared type E at {@code time} without applying it to the sum of the
   * prefixes ending in E: it is composed with the bursts deferred before it, with the inflow of
   * this moment ({@link DeferredBursts}), and the composite is applied when that sum is next read
   * or changed ({@link #settle}: an event whose transitions read the buckets, prefixes or negated
   * types joining that bucket, the window's close, an encoding) or when its coefficients reach
   * {@link #DEFERRED_BITS}. The results are exactly those of applying each burst in turn; a burst
   * costs the query a few multiplications of coefficients of a few words, and the pass over its
   * long sums comes once per {@code DEFERRED_BITS} bits of coefficient, its words filled, instead
   * of once per burst with a coefficient of a few bits (about as many as the burst has events). The
   * caller has {@link #touch}ed the window at the burst's first time and flushed what was pending
   * before it.
   *
   * @param time the time of the burst's last event
   */
  void defer(QueryWindow w, String type, BurstMap map, long time) {
    if (w.deferred == null) {
      boolean aggregated = compiled.isAggregated(type);
      w.deferred =
          new DeferredBursts(
              compiled.statesOf(type),
              shape,
              aggregated,
              shape.sum() && aggregated ? compiled.query.aggregation().attribute() : null);
    }
    long sE = w.deferred.states;
    w.deferred.add(map, inflow(w, sE, w.bucket(sE, 0)), time);
    if (w.deferred.scale.bitLength() > DEFERRED_BITS) {
      settle(w);
    }
  }

  /** Whether a group kept apart at {@code time} waits among the deferred bursts. */
  boolean keptApartAt(QueryWindow w, long time) {
    return w.deferred != null && w.deferred.last != null && w.deferred.lastTime == time;
  }

  /**
   * Defers a group kept apart at {@code time} ({@link BurstMap#lastSize}), joining the one kept
   * apart at that time if there is one: both read the sums as they were before that time, so they
   * are one group of both their events.
   */
  void deferApart(QueryWindow w, String type, BurstMap group, long time) {
    if (keptApartAt(w, time)) {
      w.deferred.joinLast(group);
    } else {
      defer(w, type, group, time);
    }
  }

  /**
   * Coefficient bits at which deferred bursts are applied: composing costs in proportion to the
   * coefficients' size, so they stay a few words; applying them then costs about the same per burst
   * whatever this bound (measured: 320 to 4,096 bits alike, 64 and 128 slower).
   */
  static final int DEFERRED_BITS = 512;

  /**
   * Brings the deferred bursts up to {@code time}, at which the window is about to be read or
   * advanced: a group kept apart at an earlier time is folded in (its prefixes would have joined
   * their bucket by now); one kept apart at this very time becomes pending ({@link #settle}).
   */
  void touch(QueryWindow w, long time) {
    touch(w, time, true);
  }

  /**
   * {@link #touch}; with {@code settleAtItsTime} false, a group kept apart at {@code time} itself
   * stays deferred, for an event that does not read the sums: their prefixes cannot extend each
   * other, and what the event leaves pending joins the sums only after the group is composed
   * (settling would cost a pass over the sums). A group kept apart at the time of a pending negated
   * event becomes pending instead of being folded in: folded into the sums, the negated event would
   * cut its prefixes, which end at that time.
   */
  void touch(QueryWindow w, long time, boolean settleAtItsTime) {
    DeferredBursts deferred = w.deferred;
    if (deferred == null || deferred.last == null) {
      return;
    }
    boolean cutAtItsTime = w.pendingNegated != 0 && w.pendingTime == deferred.lastTime;
    if (time > deferred.lastTime && !cutAtItsTime) {
      deferred.foldLast(inflow(w, deferred.states, w.bucket(deferred.states, 0)));
    } else if (time > deferred.lastTime || settleAtItsTime) {
      settle(w);
    }
  }

  /**
   * Applies the deferred bursts, if any, so that the query's sums are current; a group kept apart
   * that has not been folded in becomes the pending prefixes it stands for, at its time.
   */
  void settle(QueryWindow w) {
    DeferredBursts deferred = w.deferred;
    if (deferred == null) {
      return;
    }
    w.deferred = null;
    long sE = deferred.states;
    QueryWindow.Bucket fresh = bucketFor(w, sE, 0);
    deferred.applyTo(fresh.total);
    if (deferred.last != null) {
      TrendSums last =
          deferred.last.lastPrefixes(
              fresh.total, inflow(w, sE, fresh), deferred.aggregated, deferred.attribute);
      w.pending.add(new QueryWindow.Pending(sE, last, null));
      w.pendingTime = deferred.lastTime;
    }
  }

  /** Whether a pending prefix is about to join the bucket the deferred bursts apply to. */
  private boolean joinsDeferred(QueryWindow w) {
    for (QueryWindow.Pending p : w.pending) {
      if (p.set() == w.deferred.states) {
        return true;
      }
    }
    return false;
  }

  /** Bits the deferred bursts will scale the query's sums by (0 if none is deferred). */
  static int deferredBits(QueryWindow w) {
    return w.deferred == null ? 0 : w.deferred.scale.bitLength();
  }

  private static void merge(QueryWindow.Bucket from, QueryWindow.Bucket into) {
    into.total.add(from.total);
    if (into.index != null) {
      if (into.index.size() < from.index.size()) {
        AdjacencyIndex smaller = into.index;
        into.index = from.index;
        smaller.addAllTo(into.index);
      } else {
        from.index.addAllTo(into.index);
      }
    }
  }

  QueryWindow.Bucket bucketFor(QueryWindow w, long set, long negated) {
    QueryWindow.Bucket b = w.bucket(set, negated);
    if (b == null) {
      SetInfo info = info(set);
      b =
          new QueryWindow.Bucket(
              info,
              negated,
              TrendSums.empty(shape),
              info.indexed ? AdjacencyIndex.create(info.predicates, shape) : null);
      w.buckets.add(b);
    }
    return b;
  }

  /** The aggregates over every complete trend of the window; the window takes no more events. */
  TrendSums close(QueryWindow w) {
    touch(w, Long.MAX_VALUE);
    settle(w);
    flush(w);
    TrendSums result = TrendSums.empty(shape);
    for (QueryWindow.Bucket b : w.buckets) {
      if (b.info.endHolds(b.negated)) {
        result.add(b.total);
      }
    }
    return result;
  }

  /**
   * What prefixes in one state set may do: the transitions out of it, the negated types that cut
   * them (the only ones a bucket keeps track of), whether they may end a trend.
   */
  static final class SetInfo {
    final long set;
    final String type;

    /** Negated types that some transition or end out of the set forbids. */
    final long relevant;

    /** States some transition out of the set enters. */
    final long targets;

    /** Whether a transition out of the set carries {@code NEXT} predicates (needs an index). */
    final boolean indexed;

    final Predicate.OnAdjacent[] predicates;
    private final QueryPlan plan;

    SetInfo(QueryPlan plan, long set) {
      this.plan = plan;
      this.set = set;
      CompiledQuery q = plan.compiled;
      this.type = q.automaton.label(Long.numberOfTrailingZeros(set));
      long relevant = 0;
      long targets = 0;
      boolean indexed = false;
      for (long s = set; s != 0; s &= s - 1) {
        int from = Long.numberOfTrailingZeros(s);
        for (Constraint c : q.automaton.end(from)) {
          relevant |= c.notMask();
        }
        int[] to = q.targets(from);
        List<Constraint>[] alternatives = q.alternatives(from);
        for (int k = 0; k < to.length; k++) {
          targets |= 1L << to[k];
          for (Constraint c : alternatives[k]) {
            relevant |= c.notMask();
            indexed |= c.adjacent();
          }
        }
      }
      this.relevant = relevant;
      this.targets = targets;
      this.indexed = indexed;
      this.predicates = q.adjacentPredicates(type);
    }

    /** Whether prefixes cut by these negated types may still end a trend. */
    boolean endHolds(long negated) {
      for (long s = set; s != 0; s &= s - 1) {
        if (anyPasses(plan.compiled.automaton.end(Long.numberOfTrailingZeros(s)), negated, false)) {
          return true;
        }
      }
      return false;
    }

    // The last answer of next per adjacentHolds (false, true).
    private final Answer[] answers = new Answer[2];

    /** The states a prefix of this set moves to on an event in {@code candidates}. */
    long next(long candidates, long negated, boolean adjacentHolds) {
      int k = adjacentHolds ? 1 : 0;
      Answer a = answers[k];
      if (a == null || a.candidates != candidates || a.negated != negated) {
        a = new Answer(candidates, negated, computeNext(candidates, negated, adjacentHolds));
        answers[k] = a;
      }
      return a.states;
    }

    private long computeNext(long candidates, long negated, boolean adjacentHolds) {
      long next = 0;
      for (long s = set; s != 0; s &= s - 1) {
        int from = Long.numberOfTrailingZeros(s);
        int[] to = plan.compiled.targets(from);
        List<Constraint>[] alternatives = plan.compiled.alternatives(from);
        for (int k = 0; k < to.length; k++) {
          long bit = 1L << to[k];
          if ((candidates & bit) != 0
              && (next & bit) == 0
              && anyPasses(alternatives[k], negated, adjacentHolds)) {
            next |= bit;
          }
        }
      }
      return next;
    }
  }
}
