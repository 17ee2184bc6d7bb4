package dev.eventide.trends.internal.engine;

import dev.eventide.trends.query.Query;
import dev.eventide.trends.query.Workload;
import dev.eventide.trends.query.WorkloadChange;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * One version of a workload that changes while a job runs: its number (0 for the workload the job
 * started with, then one more per time at which changes applied), the time its windows start from,
 * the workload in force and the queries that the changes starting it removed. A list of consecutive
 * versions is what {@link VersionedPlan#of} compiles.
 *
 * <pre>{@code
 * WorkloadVersion v0 = WorkloadVersion.initial(workload);
 * WorkloadVersion v1 = v0.next(changesAt3600000, (change, reason) -> log(change, reason));
 * }</pre>
 *
 * @param removed the names of the queries removed at {@code from} (a query replaced by one of the
 *     same name at that time included)
 */
public record WorkloadVersion(int number, long from, Workload workload, List<String> removed)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  public WorkloadVersion {
    Objects.requireNonNull(workload, "workload");
    removed = List.copyOf(removed);
  }

  /** Version 0: the workload a job starts with, in force from the start of time. */
  public static WorkloadVersion initial(Workload workload) {
    return new WorkloadVersion(0, Long.MIN_VALUE, workload, List.of());
  }

  /**
   * The version that the changes at one time make of this one, applying them in {@link
   * WorkloadChange#ORDER}: each against the workload left by those before it. A change that does
   * not apply (its text does not parse or compile, it adds a name already running or removes one
   * not running) goes to {@code refused} with the reason, and the others apply without it.
   *
   * @return the next version, or null when no change applied
   * @throws IllegalArgumentException if the changes are not all at one time after this version's
   */
  public WorkloadVersion next(
      List<WorkloadChange> atOneTime, BiConsumer<WorkloadChange, String> refused) {
    if (atOneTime.isEmpty()) {
      return null;
    }
    long time = atOneTime.get(0).time();
    for (WorkloadChange c : atOneTime) {
      if (c.time() != time || (number > 0 && time <= from)) {
        throw new IllegalArgumentException(
            "changes after version "
                + number
                + " (from "
                + from
                + ") must be at one later time: "
                + c.describe());
      }
    }
    List<WorkloadChange> ordered = new ArrayList<>(atOneTime);
    ordered.sort(WorkloadChange.ORDER);
    Workload current = workload;
    List<String> removedNow = new ArrayList<>();
    boolean applied = false;
    for (WorkloadChange c : ordered) {
      Workload next;
      try {
        next = c.applyTo(current);
        CompiledQuery.compile(next.queries());
      } catch (IllegalArgumentException e) {
        refused.accept(c, e.getMessage());
        continue;
      }
      applied = true;
      current = next;
      for (String name : c.remove()) {
        if (!removedNow.contains(name)) {
          removedNow.add(name);
        }
      }
    }
    return applied ? new WorkloadVersion(number + 1, time, current, removedNow) : null;
  }

  /** The names of the version's queries, in workload order. */
  public List<String> queryNames() {
    return workload.queries().stream().map(Query::name).toList();
  }
}
