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

  /** The number of the first version; versions are numbered consecutively from it. */
  private final int first;

  private VersionedPlan(int first) {
    this.first = first;
  }

  /**
   * Compiles the workload and its changes, applied in {@link WorkloadChange#ORDER}.
   *
   * @throws IllegalArgumentException naming the first change that does not apply to the workload in
   *     force at its time ({@link WorkloadChange#applyTo}), or whose queries cannot be compiled
   */
  public static VersionedPlan compile(
      Workload initial, List<WorkloadChange> changes, Sharing sharing) {
    List<WorkloadChange> ordered = new ArrayList<>(changes);
    ordered.sort(WorkloadChange.ORDER);
    List<WorkloadVersion> versions = new ArrayList<>(List.of(WorkloadVersion.initial(initial)));
    for (int i = 0; i < ordered.size(); ) {
      int j = i;
      while (j < ordered.size() && ordered.get(j).time() == ordered.get(i).time()) {
        j++;
      }
      WorkloadVersion last = versions.get(versions.size() - 1);
      versions.add(
          last.next(
              ordered.subList(i, j),
              (c, reason) -> {
                throw new IllegalArgumentException(
                    "the workload change (" + c.describe() + ") does not apply: " + reason);
              }));
      i = j;
    }
    return of(versions, sharing);
  }

  /**
   * Compiles consecutive versions of a workload (as {@link WorkloadVersion#next} makes them), each
   * in force from its own time: a runner that learns of versions as the job runs compiles those it
   * knows (an event before the first has no route), and a key of one version compiles that version
   * alone (it knows of no later version and no removal: {@link #inForce} is then decided where the
   * later versions are known). A query is removed from the versions before the one whose changes
   * removed it.
   *
   * @throws IllegalArgumentException if the versions are not consecutive
   */
  public static VersionedPlan of(List<WorkloadVersion> list, Sharing sharing) {
    if (list.isEmpty()) {
      throw new IllegalArgumentException("a versioned plan needs at least one version");
    }
    VersionedPlan versions = new VersionedPlan(list.get(0).number());
    for (int i = 0; i < list.size(); i++) {
      WorkloadVersion w = list.get(i);
      if (w.number() != versions.first + i) {
        throw new IllegalArgumentException(
            "versions must be consecutive, but " + w.number() + " follows " + (w.number() - i));
      }
      versions.froms.add(w.from());
      versions.removals.add(new HashMap<>());
      for (String removed : w.removed()) {
        for (int v = 0; v < i; v++) {
          versions.removals.get(v).putIfAbsent(removed, w.from());
        }
      }
    }
    for (int i = 0; i < list.size(); i++) {
      Workload workload = list.get(i).workload();
      versions.plans.add(TrendPlan.compile(workload, sharing));
      // A version's removals come from changes after it began; only its own queries count.
      versions.removals.get(i).keySet().retainAll(names(workload));
    }
    versions.lastUsefulEnds = new long[list.size()][];
    for (int i = 0; i < list.size(); i++) {
      TrendPlan plan = versions.plans.get(i);
      long[] ends = new long[plan.unitCount()];
      for (int unit = 0; unit < ends.length; unit++) {
        long last = Long.MIN_VALUE;
        for (String query : plan.queryNames(unit)) {
          last = Math.max(last, versions.removals.get(i).getOrDefault(query, Long.MAX_VALUE));
        }
        ends[unit] = last;
      }
      versions.lastUsefulEnds[i] = ends;
    }
    return versions;
  }

  private static List<String> names(Workload w) {
    return w.queries().stream().map(Query::name).toList();
  }

  /** How many versions there are. */
  public int versions() {
    return plans.size();
  }

  /** The number of the first version (0 when compiled from a schedule). */
  public int firstVersion() {
    return first;
  }

  /** The number of the last version. */
  public int lastVersion() {
    return first + plans.size() - 1;
  }

  public TrendPlan plan(int version) {
    return plans.get(version - first);
  }

  /** The time from which a version's windows start ({@code Long.MIN_VALUE} for version 0). */
  public long from(int version) {
    return froms.get(version - first);
  }

  /** The time from which the next version's windows start ({@code Long.MAX_VALUE}: none). */
  public long until(int version) {
    int next = version - first + 1;
    return next < froms.size() ? froms.get(next) : Long.MAX_VALUE;
  }

  /** When a query of a version is removed from the workload ({@code Long.MAX_VALUE}: never). */
  public long removedAt(int version, String query) {
    return removals.get(version - first).getOrDefault(query, Long.MAX_VALUE);
  }

  /**
   * The latest end of a window of a version's unit that can give a result: the latest removal of
   * its queries when all of them are removed ({@code Long.MAX_VALUE} otherwise). Later windows give
   * nothing, so no event is routed for them and no key waits for them.
   */
  public long lastUsefulEnd(int version, int unit) {
    return lastUsefulEnds[version - first][unit];
  }

  /** A version's unit reading an event, with the event's partition there. */
  public record Route(int version, int unit, List<Object> partition) {}

  /** The (version, unit) pairs that read the event and have a window holding its time. */
  public List<Route> route(Event e) {
    List<Route> routes = new ArrayList<>();
    for (int v = first; v <= lastVersion(); v++) {
      if (from(v) > e.time()) {
        break;
      }
      TrendPlan plan = plan(v);
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
    TrendState state = plan(version).newState(unit, partition);
    limit(version, state);
    return state;
  }

  /** Limits a (decoded) state of the version to the version's windows. */
  public void limit(int version, TrendState state) {
    plan(version).limitWindows(state, from(version), until(version));
  }

  /** Whether a result of the version is one to emit: its query was not removed before its end. */
  public boolean emits(int version, WindowResult r) {
    return r.windowEnd() <= removedAt(version, r.query());
  }

  /**
   * Whether a window's result belongs to its version: the window starts before the next version's
   * time ({@code until}) and ends by its query's removal ({@code removedAt}), both {@code
   * Long.MAX_VALUE} when there is none.
   */
  public static boolean inForce(long windowStart, long windowEnd, long until, long removedAt) {
    return windowStart < until && windowEnd <= removedAt;
  }

  /**
   * Retires from the state the queries removed at or before {@code closedUpTo}, the time up to
   * which its windows are closed: every window they may still give a result for has been closed.
   */
  public void retireClosed(int version, TrendState state, long closedUpTo) {
    TrendPlan plan = plan(version);
    removals
        .get(version - first)
        .forEach(
            (query, at) -> {
              if (at <= closedUpTo) {
                plan.retire(state, query);
              }
            });
  }
}
