package dev.eventide.trends.internal.engine;

import dev.eventide.trends.Event;
import dev.eventide.trends.Sharing;
import dev.eventide.trends.query.Query;
import dev.eventide.trends.query.Workload;
import dev.eventide.trends.query.WorkloadChange;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A workload and a schedule of changes known in advance, compiled: one {@link TrendPlan} per
 * version, version 0 the initial workload and each later one the workload in force from a change's
 * time (changes at one time make one version). Version v evaluates the windows that start in
 * [{@link #from}(v), {@link #until}(v)); a query removed at t gives no result for a window that
 * ends after t ({@link #emits}), and its sums go once its windows up to t are closed ({@link
 * #retireClosed}). For a runner whose state is keyed by (version, unit, partition): every version
 * is known from the start, so an event is routed to the right versions whenever it arrives.
 */
public final class VersionedPlan {
  private final List<TrendPlan> plans = new ArrayList<>();
  private final List<Long> froms = new ArrayList<>();

  /** Per version, the time each of its queries is removed at (absent: never). */
  private final List<Map<String, Long>> removals = new ArrayList<>();

  /** Per version and unit, {@link #lastUsefulEnd}: asked for every event, computed once. */
  private long[][] lastUsefulEnds;

  private VersionedPlan() {}

  /**
   * Compiles the workload and its changes, applied in {@link WorkloadChange#ORDER}.
   *
   * @throws IllegalArgumentException naming the first change that does not apply to the workload in
   *     force at its time ({@link WorkloadChange#applyTo}), or whose queries cannot be compiled
   */
  public static VersionedPlan compile(
      Workload initial, List<WorkloadChange> changes, Sharing sharing) {
    VersionedPlan versions = new VersionedPlan();
    List<WorkloadChange> ordered = new ArrayList<>(changes);
    ordered.sort(WorkloadChange.ORDER);
    Workload current = initial;
    List<Workload> workloads = new ArrayList<>(List.of(initial));
    versions.froms.add(Long.MIN_VALUE);
    for (int i = 0; i < ordered.size(); i++) {
      WorkloadChange c = ordered.get(i);
      try {
        current = c.applyTo(current);
        CompiledQuery.compile(current.queries());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "the workload change (" + c.describe() + ") does not apply: " + e.getMessage(), e);
      }
      for (String removed : c.remove()) {
        for (int v = 0; v < workloads.size(); v++) {
          versions.removalsOf(v).putIfAbsent(removed, c.time());
        }
      }
      boolean lastAtThisTime = i + 1 == ordered.size() || ordered.get(i + 1).time() != c.time();
      if (lastAtThisTime) {
        workloads.add(current);
        versions.froms.add(c.time());
      }
    }
    for (int v = 0; v < workloads.size(); v++) {
      versions.plans.add(TrendPlan.compile(workloads.get(v), sharing));
      // A version's removals come from changes after it began; only its own queries count.
      versions.removalsOf(v).keySet().retainAll(names(workloads.get(v)));
    }
    versions.lastUsefulEnds = new long[workloads.size()][];
    for (int v = 0; v < workloads.size(); v++) {
      TrendPlan plan = versions.plans.get(v);
      long[] ends = new long[plan.unitCount()];
      for (int unit = 0; unit < ends.length; unit++) {
        long last = Long.MIN_VALUE;
        for (String query : plan.queryNames(unit)) {
          last = Math.max(last, versions.removedAt(v, query));
        }
        ends[unit] = last;
      }
      versions.lastUsefulEnds[v] = ends;
    }
    return versions;
  }

  private Map<String, Long> removalsOf(int version) {
    while (removals.size() <= version) {
      removals.add(new HashMap<>());
    }
    return removals.get(version);
  }

  private static List<String> names(Workload w) {
    return w.queries().stream().map(Query::name).toList();
  }

  public int versions() {
    return plans.size();
  }

  public TrendPlan plan(int version) {
    return plans.get(version);
  }

  /** The time from which a version's windows start ({@code Long.MIN_VALUE} for version 0). */
  public long from(int version) {
    return froms.get(version);
  }

  /** The time from which the next version's windows start ({@code Long.MAX_VALUE}: none). */
  public long until(int version) {
    return version + 1 < froms.size() ? froms.get(version + 1) : Long.MAX_VALUE;
  }

  /** When a query of a version is removed from the workload ({@code Long.MAX_VALUE}: never). */
  public long removedAt(int version, String query) {
    return removals.get(version).getOrDefault(query, Long.MAX_VALUE);
  }

  /**
   * The latest end of a window of a version's unit that can give a result: the latest removal of
   * its queries when all of them are removed ({@code Long.MAX_VALUE} otherwise). Later windows give
   * nothing, so no event is routed for them and no key waits for them.
   */
  public long lastUsefulEnd(int version, int unit) {
    return lastUsefulEnds[version][unit];
  }

  /** A version's unit reading an event, with the event's partition there. */
  public record Route(int version, int unit, List<Object> partition) {}

  /** The (version, unit) pairs that read the event and have a window holding its time. */
  public List<Route> route(Event e) {
    List<Route> routes = new ArrayList<>();
    for (int v = 0; v < plans.size(); v++) {
      if (from(v) > e.time()) {
        break;
      }
      TrendPlan plan = plans.get(v);
      for (TrendPlan.Route r : plan.route(e)) {
        if (plan.hasWindow(r.unit(), e.time(), from(v), until(v), lastUsefulEnd(v, r.unit()))) {
          routes.add(new Route(v, r.unit(), r.partition()));
        }
      }
    }
    return routes;
  }

  /** A new state of a version's unit and partition, opening only the version's windows. */
  public TrendState newState(int version, int unit, List<Object> partition) {
    TrendState state = plans.get(version).newState(unit, partition);
    limit(version, state);
    return state;
  }

  /** Limits a (decoded) state of the version to the version's windows. */
  public void limit(int version, TrendState state) {
    plans.get(version).limitWindows(state, from(version), until(version));
  }

  /** Whether a result of the version is one to emit: its query was not removed before its end. */
  public boolean emits(int version, WindowResult r) {
    return r.windowEnd() <= removedAt(version, r.query());
  }

  /**
   * Retires from the state the queries removed at or before {@code closedUpTo}, the time up to
   * which its windows are closed: every window they may still give a result for has been closed.
   */
  public void retireClosed(int version, TrendState state, long closedUpTo) {
    TrendPlan plan = plans.get(version);
    removals
        .get(version)
        .forEach(
            (query, at) -> {
              if (at <= closedUpTo) {
                plan.retire(state, query);
              }
            });
  }
}
