package dev.eventide.trends.io;

import dev.eventide.trends.Event;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.query.Query;
import dev.eventide.trends.query.Workload;
import dev.eventide.trends.query.WorkloadChange;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The workloads a run goes through: the initial one, then one per change that applies, in {@link
 * WorkloadChange#ORDER}. A change that does not apply to the workload in force at its time is
 * refused, with the reason, and the run goes on without it. An event is checked against the
 * workloads whose windows may hold it ({@link TrendJob#parseEvent(TextLines.Line,
 * WorkloadVersions)}).
 *
 * <pre>{@code
 * List<BadChangeException> refused = new ArrayList<>();
 * WorkloadVersions versions = WorkloadVersions.of(workload, changes, refused::add);
 * List<WorkloadChange> applicable = versions.accepted();   // in the order they apply
 * }</pre>
 */
public final class WorkloadVersions {
  private record Version(long from, long within, EventSchema schema) {}

  private final List<Version> versions = new ArrayList<>();
  private final List<WorkloadChange> accepted = new ArrayList<>();
  private final Set<String> types = new HashSet<>();
  private long longestWithin;

  /**
   * The workloads of a run, checking each change against the workload in force at its time.
   *
   * @param refused receives each change that does not apply, with the reason
   */
  public static WorkloadVersions of(
      Workload initial, List<WorkloadChange> changes, Consumer<BadChangeException> refused) {
    return new WorkloadVersions(initial, changes, refused);
  }

  private WorkloadVersions(
      Workload initial, List<WorkloadChange> changes, Consumer<BadChangeException> refused) {
    add(Long.MIN_VALUE, initial);
    Workload current = initial;
    List<WorkloadChange> ordered = new ArrayList<>(changes);
    ordered.sort(WorkloadChange.ORDER);
    for (WorkloadChange c : ordered) {
      Workload next;
      try {
        next = c.applyTo(current);
        Engines.check(next);
      } catch (IllegalArgumentException e) {
        refused.accept(new BadChangeException(c, e.getMessage()));
        continue;
      }
      accepted.add(c);
      add(c.time(), next);
      current = next;
    }
  }

  private void add(long from, Workload workload) {
    long within = 0;
    for (Query q : workload.queries()) {
      within = Math.max(within, q.within());
      types.addAll(q.types());
    }
    longestWithin = Math.max(longestWithin, within);
    versions.add(new Version(from, within, EventSchema.of(workload)));
  }

  /** The changes that apply, in the order they apply in. */
  public List<WorkloadChange> accepted() {
    return accepted;
  }

  /** Whether a query of any version reads events of this type. */
  public boolean reads(String type) {
    return types.contains(type);
  }

  /**
   * Null if every version whose windows may hold the event can use it, else why one cannot ({@link
   * EventSchema#problemWith}).
   */
  public String problemWith(Event e) {
    long t = e.time();
    int last = lastStartingBy(t);
    for (int i = last; i >= 0; i--) {
      Version v = versions.get(i);
      long until = i + 1 < versions.size() ? versions.get(i + 1).from() : Long.MAX_VALUE;
      if (i < last && until <= minus(t, longestWithin)) {
        break; // neither this version's windows nor earlier ones reach t
      }
      if (i == last || until > minus(t, v.within())) {
        String problem = v.schema().problemWith(e);
        if (problem != null) {
          return problem;
        }
      }
    }
    return null;
  }

  private static long minus(long t, long span) {
    return t < Long.MIN_VALUE + span ? Long.MIN_VALUE : t - span;
  }

  /** The index of the last version in force at or before t. */
  private int lastStartingBy(long t) {
    int low = 0;
    int high = versions.size() - 1;
    while (low < high) {
      int mid = (low + high + 1) >>> 1;
      if (versions.get(mid).from() <= t) {
        low = mid;
      } else {
        high = mid - 1;
      }
    }
    return low;
  }
}
