package dev.eventide.trends.query;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A change of a running workload at an event time: queries added (their text, in the query
 * language) or queries removed (by name). An added query evaluates the windows that start at or
 * after {@code time}; a removed query emits nothing for the windows that end after {@code time},
 * and its state goes. docs/trends-query-language.md, "Changing the workload", has the rules.
 *
 * <pre>{@code
 * WorkloadChange add = WorkloadChange.add(3_600_000, """
 *     QUERY late_pickups
 *     RETURN COUNT(*)
 *     PATTERN SEQ(Request, Travel+)
 *     WITHIN 10 minutes SLIDE 5 minutes
 *     """);
 * WorkloadChange remove = WorkloadChange.remove(7_200_000, "late_pickups");
 * Workload next = remove.applyTo(add.applyTo(workload));   // what each change leaves in force
 * }</pre>
 *
 * @param time the event time (epoch milliseconds) from which the change holds
 * @param add the text of the queries added, or null
 * @param remove the names of the queries removed (empty when adding)
 */
public record WorkloadChange(long time, String add, List<String> remove)
    implements java.io.Serializable {

  /**
   * The order changes apply in: by time; at one time, removals before additions (so a query can be
   * replaced by one of the same name at one time), then by their text. It does not depend on the
   * order the changes arrived in.
   */
  public static final Comparator<WorkloadChange> ORDER =
      Comparator.comparingLong(WorkloadChange::time)
          .thenComparing(c -> c.add() != null)
          .thenComparing(WorkloadChange::describe);

  public WorkloadChange {
    remove = List.copyOf(Objects.requireNonNull(remove, "remove"));
    if ((add == null) == remove.isEmpty()) {
      throw new IllegalArgumentException(
          "a workload change either adds queries or removes queries by name, not both or neither");
    }
    if (add != null && add.isBlank()) {
      throw new IllegalArgumentException("a workload change adds no query: its text is blank");
    }
    for (String name : remove) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("a workload change removes a query without a name");
      }
    }
    if (new HashSet<>(remove).size() != remove.size()) {
      throw new IllegalArgumentException("a workload change removes a query twice: " + remove);
    }
  }

  /** Adds the queries written in {@code queries} (query-language text) at {@code time}. */
  public static WorkloadChange add(long time, String queries) {
    return new WorkloadChange(time, Objects.requireNonNull(queries, "queries"), List.of());
  }

  /** Removes the named queries at {@code time}. */
  public static WorkloadChange remove(long time, String... names) {
    return new WorkloadChange(time, null, List.of(names));
  }

  /**
   * The workload in force after this change.
   *
   * @throws QueryException with line and column (within {@link #add}) when the added text does not
   *     parse, or names a query the workload already has
   * @throws IllegalArgumentException when a removed name is not a query of the workload (a workload
   *     may be left without queries, until a later change adds some)
   */
  public Workload applyTo(Workload workload) {
    Set<String> names = new LinkedHashSet<>();
    workload.queries().forEach(q -> names.add(q.name()));
    List<Query> next = new ArrayList<>();
    if (add != null) {
      List<Query> added = QueryParser.parse(add);
      for (Query q : added) {
        if (names.contains(q.name())) {
          throw new QueryException(
              q.line(), q.column(), "a query named '" + q.name() + "' is already running");
        }
      }
      next.addAll(workload.queries());
      next.addAll(added);
    } else {
      for (String name : remove) {
        if (!names.contains(name)) {
          throw new IllegalArgumentException(
              "no query named '"
                  + name
                  + "' is running (running: "
                  + String.join(", ", names)
                  + ")");
        }
      }
      workload.queries().stream().filter(q -> !remove.contains(q.name())).forEach(next::add);
    }
    return new Workload(next);
  }

  /** A one-line description: {@code add at 3600000: QUERY ...} or {@code remove at 0: q1, q2}. */
  public String describe() {
    return add != null
        ? "add at " + time + ": " + add.strip().replaceAll("\\s+", " ")
        : "remove at " + time + ": " + String.join(", ", remove);
  }
}
