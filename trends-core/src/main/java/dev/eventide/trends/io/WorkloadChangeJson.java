package dev.eventide.trends.io;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.eventide.trends.query.WorkloadChange;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Workload changes as JSON lines, what {@code eventide trends --workload-changes} reads: {@code
 * {"time":3600000,"add":"QUERY q9 RETURN COUNT(*) PATTERN SEQ(A, B+) WITHIN 10 minutes"}} adds the
 * queries of the text at the time (epoch milliseconds), {@code {"time":7200000,"remove":"q3"}} (or
 * {@code "remove":["q3","q4"]}) removes queries by name.
 *
 * <pre>{@code
 * WorkloadChange change = WorkloadChangeJson.parse("{\"time\":60000,\"remove\":\"q3\"}", 1);
 * String line = WorkloadChangeJson.format(change);   // the same JSON
 * }</pre>
 */
public final class WorkloadChangeJson {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private WorkloadChangeJson() {}

  /**
   * Parses one line.
   *
   * @throws BadChangeException with the line number when the line is not a change: not a JSON
   *     object, no integral {@code time}, neither or both of {@code add} and {@code remove}, or a
   *     field of another name
   */
  public static WorkloadChange parse(String line, long lineNumber) {
    JsonNode node;
    try {
      node = MAPPER.readTree(line);
    } catch (JsonProcessingException e) {
      throw new BadChangeException(
          lineNumber, "not JSON: " + e.getOriginalMessage().replace('\n', ' '));
    }
    if (node == null || !node.isObject()) {
      throw new BadChangeException(lineNumber, "a change is a JSON object {\"time\":..,...}");
    }
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!name.equals("time") && !name.equals("add") && !name.equals("remove")) {
        throw new BadChangeException(
            lineNumber, "unknown field '" + name + "': a change has time and add or remove");
      }
    }
    JsonNode time = node.get("time");
    if (time == null || !time.isIntegralNumber() || !time.canConvertToLong()) {
      throw new BadChangeException(
          lineNumber, "a change needs \"time\": its event time in epoch milliseconds");
    }
    JsonNode add = node.get("add");
    JsonNode remove = node.get("remove");
    if ((add == null) == (remove == null)) {
      throw new BadChangeException(
          lineNumber, "a change has either \"add\" (query text) or \"remove\" (names), not both");
    }
    try {
      if (add != null) {
        if (!add.isTextual()) {
          throw new BadChangeException(lineNumber, "\"add\" must be the queries' text");
        }
        return WorkloadChange.add(time.asLong(), add.asText());
      }
      return WorkloadChange.remove(time.asLong(), names(remove, lineNumber));
    } catch (IllegalArgumentException e) {
      throw new BadChangeException(lineNumber, e.getMessage());
    }
  }

  /** The change as one JSON line, as {@link #parse} reads it. */
  public static String format(WorkloadChange change) {
    ObjectNode node = MAPPER.createObjectNode().put("time", change.time());
    if (change.add() != null) {
      node.put("add", change.add());
    } else if (change.remove().size() == 1) {
      node.put("remove", change.remove().get(0));
    } else {
      ArrayNode names = node.putArray("remove");
      change.remove().forEach(names::add);
    }
    return node.toString();
  }

  private static String[] names(JsonNode remove, long lineNumber) {
    List<String> names = new ArrayList<>();
    if (remove.isTextual()) {
      names.add(remove.asText());
    } else if (remove.isArray() && !remove.isEmpty()) {
      for (JsonNode n : remove) {
        if (!n.isTextual()) {
          throw new BadChangeException(lineNumber, "\"remove\" names queries: strings only");
        }
        names.add(n.asText());
      }
    } else {
      throw new BadChangeException(
          lineNumber, "\"remove\" is a query's name or a non-empty array of names");
    }
    return names.toArray(String[]::new);
  }
}
