package dev.eventide.trends.internal.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Bursts of a unit's shared Kleene type E that one query has not applied to its sums yet, in one
 * window ({@link QueryPlan#defer}). A burst maps the sum F of the query's prefixes ending in E by
 * {@link BurstMap#applyGroups} given the inflow X of that moment; any number of bursts compose to
 *
 * <pre>
 *   F.count  ← A·F.count + d.count
 *   F.events ← A·F.events + G·F.count + d.events
 *   F.sum    ← A·F.sum + S·F.count + d.sum
 * </pre>
 *
 * where A, G and S depend only on the bursts and d on the bursts and the inflows. The inflow is
 * folded into d burst by burst, so the query may take new prefixes elsewhere (a start event)
 * without applying F. Each burst costs a few multiplications of numbers about as large as A (a few
 * words), instead of a pass over the query's sums, which have as many bits as the window has had E
 * events; that pass is paid once per {@link QueryPlan#DEFERRED_BITS} bits of A, with A's words
 * filled.
 *
 * <p>A burst whose last timestamp group is kept apart ({@link BurstMap#lastSize}: a later event may
 * still come at its time) leaves that group here too, with its time: when the query is next touched
 * at a later time, the group's prefixes would have joined F, so it is composed as a group of its
 * own ({@link BurstMap#lastAsGroup}); touched at the same time, it becomes the pending prefixes it
 * stands for ({@link QueryPlan#settle}).
 *
 * <p>An event that reads F to give prefixes to a bucket nothing reads before the window closes (an
 * end event: no transition out, nothing cuts it) does not settle F either: the read is a tap
 * ({@link #tap}), the same linear function of F, added to that bucket when F is next settled.
 */
final class DeferredBursts {
  /** The query's state set of E: the bucket whose sums the bursts apply to. */
  final long states;

  /** Whether the query aggregates E (COUNT(E), SUM(E.a), AVG(E.a)). */
  final boolean aggregated;

  /** The attribute of E the query sums, or null. */
  final String attribute;

  /** A: the product of the bursts' scale factors. */
  final ExactInt scale = new ExactInt(1);

  /** G (when the query counts E events of its trends). */
  private final ExactInt eventsPerPrefix;

  /** S (when the query sums an attribute of E). */
  private final ExactDecimal sumPerPrefix;

  /** d: what the bursts add to F whatever F was. */
  private final TrendSums offset;

  DeferredBursts(long states, TrendSums.Shape shape, boolean aggregated, String attribute) {
    this.states = states;
    this.aggregated = aggregated;
    this.attribute = attribute;
    this.offset = TrendSums.empty(shape);
    this.eventsPerPrefix = shape.events() ? new ExactInt() : null;
    this.sumPerPrefix = shape.sum() ? new ExactDecimal() : null;
  }

  /** The last burst's group kept apart, or null, and its time. */
  BurstMap last;

  long lastTime;

  /**
   * Composes one more burst at {@code time}, with the inflow X at that time; a group it keeps apart
   * waits in {@link #last}. A group kept apart before must have been folded in ({@link #foldLast}).
   */
  void add(BurstMap map, TrendSums inflow, long time) {
    compose(map, inflow);
    if (map.lastSize != 0) {
      last = map;
      lastTime = time;
    }
  }

  /**
   * Joins a group of the same time to the group kept apart (a map with only a group kept apart):
   * one group of both their events and attribute sums.
   */
  void joinLast(BurstMap group) {
    Map<String, ExactDecimal[]> sums = new LinkedHashMap<>();
    if (attribute != null) {
      ExactDecimal sum = last.lastSums.get(attribute).copy();
      sum.add(group.lastSums.get(attribute));
      sums.put(attribute, new ExactDecimal[] {sum});
    }
    last = BurstMap.of(new long[] {last.lastSize + group.lastSize}, sums, true);
  }

  /** Composes the group kept apart as a group of its own: time has moved on since. */
  void foldLast(TrendSums inflow) {
    compose(last.lastAsGroup(), inflow);
    last = null;
  }

  private void compose(BurstMap map, TrendSums inflow) {
    // G and S read A before this burst, and the map reads d before it.
    if (eventsPerPrefix != null) {
      eventsPerPrefix.multiply(map.alpha);
      if (aggregated) {
        eventsPerPrefix.addProduct(map.gamma, scale);
      }
    }
    if (sumPerPrefix != null) {
      sumPerPrefix.multiply(map.alpha);
      if (aggregated) {
        sumPerPrefix.addProduct(map.sums.get(attribute)[0], scale);
      }
    }
    map.applyGroups(offset, inflow, aggregated, attribute);
    scale.multiply(map.alpha);
  }

  /**
   * Reads of F deferred with it, one per target: each target receives F as it was at every read,
   * {@code A_i·F + …}, summed here as the sums of the coefficients of those moments.
   */
  private List<Tap> taps;

  private record Tap(TrendSums target, DeferredBursts sum) {}

  /**
   * Records that {@code target} receives F as the bursts deferred so far make it, to be added when
   * F is next settled (before the bursts apply to F): for a bucket nothing reads before then. The
   * coefficients of the reads to one target are summed, so the pass over F's long sums is paid once
   * per settling, not once per read.
   */
  void tap(TrendSums target) {
    if (taps == null) {
      taps = new ArrayList<>(1);
    }
    Tap tap = null;
    for (Tap t : taps) {
      if (t.target == target) {
        tap = t;
        break;
      }
    }
    if (tap == null) {
      tap = new Tap(target, new DeferredBursts(states, target.shape(), aggregated, attribute));
      tap.sum.scale.set(0);
      taps.add(tap);
    }
    DeferredBursts into = tap.sum;
    into.scale.add(scale);
    if (eventsPerPrefix != null) {
      into.eventsPerPrefix.add(eventsPerPrefix);
    }
    if (sumPerPrefix != null) {
      into.sumPerPrefix.add(sumPerPrefix);
    }
    into.offset.add(offset);
  }

  /** Adds to {@code target} the linear function of F these coefficients stand for: A·F + … + d. */
  private void addImageOf(TrendSums f, TrendSums target) {
    if (target.events != null) {
      target.events.addProduct(f.events, scale);
      target.events.addProduct(f.count, eventsPerPrefix);
      target.events.add(offset.events);
    }
    if (target.sum != null) {
      target.sum.addProduct(f.sum, scale);
      target.sum.addProduct(sumPerPrefix, f.count);
      target.sum.add(offset.sum);
    }
    target.count.addProduct(f.count, scale);
    target.count.add(offset.count);
  }

  /** Applies the composed bursts to F, in place, after adding to each tapped target its reads. */
  void applyTo(TrendSums f) {
    if (taps != null) {
      for (Tap t : taps) {
        t.sum.addImageOf(f, t.target);
      }
      taps = null;
    }
    if (f.events != null) {
      f.events.multiply(scale);
      f.events.addProduct(f.count, eventsPerPrefix);
      f.events.add(offset.events);
    }
    if (f.sum != null) {
      f.sum.multiply(scale);
      f.sum.addProduct(sumPerPrefix, f.count);
      f.sum.add(offset.sum);
    }
    f.count.multiply(scale);
    f.count.add(offset.count);
  }
}
