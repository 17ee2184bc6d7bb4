package dev.eventide.trends.io;

import dev.eventide.trends.Event;
import dev.eventide.trends.query.Predicate;
import dev.eventide.trends.query.Query;
import dev.eventide.trends.query.Workload;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a workload needs of the events of each type: the attributes it groups, partitions, filters
 * and aggregates by, and whether they must be numbers or strings. An event that lacks one is
 * rejected with a reason that names the query and the clause, rather than silently never matching.
 *
 * <pre>{@code
 * EventSchema schema = EventSchema.of(workload);
 * if (schema.reads(event.type())) {
 *   String problem = schema.problemWith(event);   // null when the queries can use it
 * }
 * }</pre>
 */
public final class EventSchema {
  private enum Kind {
    NUMBER,
    STRING,
    ANY
  }

  private record Requirement(String attribute, Kind kind, String usedBy) {}

  private final Map<String, List<Requirement>> byType = new HashMap<>();

  /** Per type, the largest WITHIN + SLIDE of a query reading it: the margin its time needs. */
  private final Map<String, Long> margin = new HashMap<>();

  private EventSchema() {}

  public static EventSchema of(Workload workload) {
    EventSchema schema = new EventSchema();
    for (Query q : workload.queries()) {
      long needed =
          q.within() > Long.MAX_VALUE - q.slide() ? Long.MAX_VALUE : q.within() + q.slide();
      for (String type : q.types()) {
        schema.margin.merge(type, needed, Math::max);
        for (String a : q.groupBy()) {
          schema.require(type, a, Kind.ANY, q.name() + " (GROUPBY)");
        }
        for (String a : q.equivalence()) {
          schema.require(type, a, Kind.ANY, q.name() + " (WHERE [" + a + "])");
        }
      }
      for (Predicate p : q.predicates()) {
        if (p instanceof Predicate.OnEvent e) {
          Kind kind = e.constant() instanceof BigDecimal ? Kind.NUMBER : Kind.STRING;
          schema.require(e.type(), e.attribute(), kind, q.name() + " (WHERE " + p + ")");
        } else if (p instanceof Predicate.OnAdjacent a) {
          schema.require(a.type(), a.attribute(), Kind.ANY, q.name() + " (WHERE " + p + ")");
          schema.require(a.type(), a.nextAttribute(), Kind.ANY, q.name() + " (WHERE " + p + ")");
        }
      }
      if (q.aggregation().attribute() != null) {
        schema.require(
            q.aggregation().type(),
            q.aggregation().attribute(),
            Kind.NUMBER,
            q.name() + " (RETURN " + q.aggregation() + ")");
      }
    }
    return schema;
  }

  /** Whether a query of the workload reads events of this type. */
  public boolean reads(String type) {
    return margin.containsKey(type);
  }

  /**
   * Adds a requirement unless the type has one of the same attribute and kind: an event failing it
   * fails that earlier one first, with the same reason, so it would only cost a lookup per event
   * (many queries read one type alike).
   */
  private void require(String type, String attribute, Kind kind, String usedBy) {
    List<Requirement> requirements = byType.computeIfAbsent(type, t -> new ArrayList<>());
    for (Requirement r : requirements) {
      if (r.attribute().equals(attribute) && r.kind() == kind) {
        return;
      }
    }
    requirements.add(new Requirement(attribute, kind, usedBy));
  }

  /**
   * Null if the event has what the workload needs, else why not: an attribute missing or of the
   * wrong kind, or a time so close to the ends of the {@code long} range that the windows holding
   * it cannot be represented.
   */
  public String problemWith(Event e) {
    Long needed = margin.get(e.type());
    if (needed != null
        && (e.time() < Long.MIN_VALUE + needed || e.time() > Long.MAX_VALUE - needed)) {
      return "time "
          + e.time()
          + " is within "
          + needed
          + " ms of the end of the range of epoch milliseconds, where the windows of a query"
          + " reading "
          + e.type()
          + " events end beyond it";
    }
    for (Requirement r : byType.getOrDefault(e.type(), List.of())) {
      Object value = e.attribute(r.attribute());
      if (value == null) {
        return "event of type "
            + e.type()
            + " has no attribute '"
            + r.attribute()
            + "', which "
            + r.usedBy()
            + " uses";
      }
      if (r.kind() == Kind.NUMBER && !(value instanceof BigDecimal)
          || r.kind() == Kind.STRING && !(value instanceof String)) {
        return "attribute '"
            + r.attribute()
            + "' of a "
            + e.type()
            + " event must be a "
            + r.kind().name().toLowerCase()
            + " for "
            + r.usedBy()
            + ", but was "
            + describe(value);
      }
    }
    return null;
  }

  private static String describe(Object value) {
    return value instanceof String s ? "the string \"" + s + "\"" : "the number " + value;
  }
}
