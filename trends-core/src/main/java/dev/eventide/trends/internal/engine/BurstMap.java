package dev.eventide.trends.internal.engine;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a run of events of a shared Kleene type E does to a query's running sums, computed once for
 * every query that accepts the same events (HAMLET's shared graphlet, Section 3.3, in the terms of
 * running sums). With F the sum over the E prefixes the burst extends and X what flows into E from
 * elsewhere (starts, other types, constant during a burst), a timestamp group of n events maps
 * {@code F.count} to {@code (1 + n)·F.count + n·X.count}; over a burst the map composes to
 *
 * <pre>
 *   F.count  ← α·F.count + β·X.count
 *   F.events ← α·F.events + β·X.events + [E aggregated] (γ·F.count + δ·X.count)
 *   F.sum    ← α·F.sum + β·X.sum + [E aggregated] (σ_a·F.count + τ_a·X.count)
 * </pre>
 *
 * where α, β, γ, δ depend only on the group sizes and σ_a, τ_a on the sums of attribute a per
 * group: the coefficients are the snapshot expressions, shared by all queries; applying them costs
 * each query a few multiplications instead of one addition per event. When a later event may still
 * come at the time of the burst's last group, that group is kept apart ({@link #lastSize}, {@link
 * #lastSums}): its prefixes must wait as pending.
 */
final class BurstMap {
  final ExactInt alpha = new ExactInt(1);
  final ExactInt beta = new ExactInt();
  final ExactInt gamma = new ExactInt();
  final ExactInt delta = new ExactInt();

  /** Per summed attribute: σ and τ. */
  final Map<String, ExactDecimal[]> sums = new LinkedHashMap<>();

  long lastSize;
  final Map<String, ExactDecimal> lastSums = new LinkedHashMap<>();

  /**
   * The map of the given timestamp groups.
   *
   * @param sizes events per group
   * @param attributeSums per summed attribute, the sum of its values per group
   * @param keepLast whether the last group is kept apart, pending
   */
  static BurstMap of(long[] sizes, Map<String, ExactDecimal[]> attributeSums, boolean keepLast) {
    BurstMap m = new BurstMap();
    int last = keepLast ? sizes.length - 1 : sizes.length;
    if (!composeInLongs(m, sizes, attributeSums, last)) {
      compose(m, sizes, attributeSums, last);
    }
    if (keepLast) {
      m.lastSize = sizes[last];
      attributeSums.forEach((a, perGroup) -> m.lastSums.put(a, perGroup[last]));
    }
    return m;
  }

  /** Composes the first {@code last} groups into m's coefficients, exactly, at any size. */
  static void compose(
      BurstMap m, long[] sizes, Map<String, ExactDecimal[]> attributeSums, int last) {
    attributeSums
        .keySet()
        .forEach(a -> m.sums.put(a, new ExactDecimal[] {new ExactDecimal(), new ExactDecimal()}));
    for (int j = 0; j < last; j++) {
      long n = sizes[j];
      ExactInt a1 = new ExactInt(1 + n);
      ExactInt nn = new ExactInt(n);
      // σ' = a1·σ + S·α ; τ' = a1·τ + S·β + S (uses α, β before this group)
      for (var e : m.sums.entrySet()) {
        ExactDecimal s = attributeSums.get(e.getKey())[j];
        ExactDecimal sigma = new ExactDecimal();
        sigma.addProduct(e.getValue()[0], a1);
        sigma.addProduct(s, m.alpha);
        ExactDecimal tau = new ExactDecimal();
        tau.addProduct(e.getValue()[1], a1);
        tau.addProduct(s, m.beta);
        tau.add(s);
        e.getValue()[0] = sigma;
        e.getValue()[1] = tau;
      }
      // γ' = a1·γ + n·α ; δ' = a1·δ + n·β + n
      ExactInt gamma = new ExactInt();
      gamma.addProduct(m.gamma, a1);
      gamma.addProduct(nn, m.alpha);
      ExactInt delta = new ExactInt();
      delta.addProduct(m.delta, a1);
      delta.addProduct(nn, m.beta);
      delta.add(n);
      m.gamma.set(gamma);
      m.delta.set(delta);
      // α' = a1·α ; β' = a1·β + n
      m.alpha.multiply(a1);
      m.beta.multiply(a1);
      m.beta.add(n);
    }
  }

  /**
   * {@link #compose} in longs, for the usual short burst whose coefficients fit (a burst of a few
   * dozen single-event groups): the same values, and the same scales for the sums (the largest of
   * the groups', as the exact path's rescaling gives), without an object per operation. Returns
   * false, leaving m as it was, if a value does not fit.
   */
  static boolean composeInLongs(
      BurstMap m, long[] sizes, Map<String, ExactDecimal[]> attributeSums, int last) {
    int attributes = attributeSums.size();
    long[][] groupSums = new long[attributes][];
    int[] scales = new int[attributes];
    int a = 0;
    try {
      for (ExactDecimal[] perGroup : attributeSums.values()) {
        int scale = 0;
        for (int j = 0; j < last; j++) {
          if (!perGroup[j].unscaled().isSmall()) {
            return false;
          }
          scale = Math.max(scale, perGroup[j].scale());
        }
        long[] aligned = new long[last];
        for (int j = 0; j < last; j++) {
          int up = scale - perGroup[j].scale();
          if (up >= POWERS_OF_TEN.length) {
            return false;
          }
          aligned[j] = Math.multiplyExact(perGroup[j].unscaled().small(), POWERS_OF_TEN[up]);
        }
        groupSums[a] = aligned;
        scales[a++] = scale;
      }
      long alpha = 1;
      long beta = 0;
      long gamma = 0;
      long delta = 0;
      long[] sigma = new long[attributes];
      long[] tau = new long[attributes];
      for (int j = 0; j < last; j++) {
        long n = sizes[j];
        long a1 = Math.addExact(1, n);
        for (int k = 0; k < attributes; k++) {
          long s = groupSums[k][j];
          sigma[k] = Math.addExact(Math.multiplyExact(a1, sigma[k]), Math.multiplyExact(s, alpha));
          tau[k] =
              Math.addExact(
                  Math.addExact(Math.multiplyExact(a1, tau[k]), Math.multiplyExact(s, beta)), s);
        }
        gamma = Math.addExact(Math.multiplyExact(a1, gamma), Math.multiplyExact(n, alpha));
        delta =
            Math.addExact(
                Math.addExact(Math.multiplyExact(a1, delta), Math.multiplyExact(n, beta)), n);
        alpha = Math.multiplyExact(a1, alpha);
        beta = Math.addExact(Math.multiplyExact(a1, beta), n);
      }
      m.alpha.set(alpha);
      m.beta.set(beta);
      m.gamma.set(gamma);
      m.delta.set(delta);
      int k = 0;
      for (String name : attributeSums.keySet()) {
        m.sums.put(
            name,
            new ExactDecimal[] {
              ExactDecimal.of(sigma[k], scales[k]), ExactDecimal.of(tau[k], scales[k])
            });
        k++;
      }
      return true;
    } catch (ArithmeticException overflow) {
      return false;
    }
  }

  private static final long[] POWERS_OF_TEN = new long[19];

  static {
    POWERS_OF_TEN[0] = 1;
    for (int i = 1; i < POWERS_OF_TEN.length; i++) {
      POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10;
    }
  }

  /**
   * Applies the groups not kept apart to a query's fresh E sum {@code f} (in place) given the
   * inflow {@code x}.
   *
   * @param aggregatesE whether the query aggregates E (COUNT(E), SUM(E.a), AVG(E.a))
   * @param attribute the attribute the query sums over E, or null
   */
  void applyGroups(TrendSums f, TrendSums x, boolean aggregatesE, String attribute) {
    // Everything in place: these sums have as many bits as the burst has events before them.
    // The events and the sum read F.count as it was, so they are updated before it.
    if (f.events != null) {
      f.events.affine(alpha, x.events, beta);
      if (aggregatesE) {
        f.events.addProduct(f.count, gamma);
        f.events.addProduct(x.count, delta);
      }
    }
    if (f.sum != null) {
      f.sum.multiply(alpha);
      f.sum.addProduct(x.sum, beta);
      if (aggregatesE) {
        ExactDecimal[] st = sums.get(attribute);
        f.sum.addProduct(st[0], f.count);
        f.sum.addProduct(st[1], x.count);
      }
    }
    f.count.affine(alpha, x.count, beta);
  }

  /**
   * The prefixes the group kept apart ends, given {@code f} after the other groups and the inflow
   * {@code x} (null if no group was kept apart): each of its n events reads T = X + F and is
   * extended by itself.
   */
  TrendSums lastPrefixes(TrendSums f, TrendSums x, boolean aggregatesE, String attribute) {
    if (lastSize == 0) {
      return null;
    }
    TrendSums t = x.copy();
    t.add(f);
    ExactInt n = new ExactInt(lastSize);
    TrendSums last = TrendSums.empty(f.shape());
    last.count.addProduct(t.count, n);
    if (last.events != null) {
      last.events.addProduct(t.events, n);
      if (aggregatesE) {
        last.events.addProduct(t.count, n);
      }
    }
    if (last.sum != null) {
      last.sum.addProduct(t.sum, n);
      if (aggregatesE) {
        last.sum.addProduct(lastSums.get(attribute), t.count);
      }
    }
    return last;
  }

  /**
   * The group kept apart as a map of its own, for when time has moved on: its prefixes then join F,
   * which is what a group not kept apart does (F ← F + n·(X + F)).
   */
  BurstMap lastAsGroup() {
    if (lastAsGroup == null) {
      Map<String, ExactDecimal[]> perGroup = new LinkedHashMap<>();
      lastSums.forEach((a, sum) -> perGroup.put(a, new ExactDecimal[] {sum}));
      lastAsGroup = of(new long[] {lastSize}, perGroup, false);
    }
    return lastAsGroup;
  }

  private BurstMap lastAsGroup;

  /** Attributes summed by the queries of a class, for {@link #of}. */
  static List<String> summedAttributes(List<QueryPlan> queries, String type) {
    return queries.stream()
        .filter(q -> q.shape.sum() && q.compiled.isAggregated(type))
        .map(q -> q.compiled.query.aggregation().attribute())
        .distinct()
        .toList();
  }
}
