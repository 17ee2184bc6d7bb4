package dev.eventide.trends.io;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.eventide.trends.TrendResult;
import java.math.BigDecimal;
import java.util.Map;

/**
 * Results as JSON lines: {@code {"query":"q1","group":{"district":3},"window_start":...,
 * "window_end":...,"value":"123456789012345678901"}}, group values with their JSON type.
 *
 * <pre>{@code
 * for (TrendResult r : Engines.HAMLET.evaluate(workload, events)) {
 *   System.out.println(ResultJson.format(r));   // {"query":"trips","group":{"district":3},...}
 * }
 * }</pre>
 */
public final class ResultJson {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private ResultJson() {}

  public static String format(TrendResult r) {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("query", r.query());
    ObjectNode group = node.putObject("group");
    for (Map.Entry<String, Object> e : r.group().entrySet()) {
      if (e.getValue() instanceof BigDecimal d) {
        BigDecimal plain = d.stripTrailingZeros();
        if (plain.scale() <= 0) {
          group.put(e.getKey(), plain.toBigIntegerExact());
        } else {
          group.put(e.getKey(), plain);
        }
      } else {
        group.put(e.getKey(), (String) e.getValue());
      }
    }
    node.put("window_start", r.windowStart());
    node.put("window_end", r.windowEnd());
    node.put("value", r.value());
    return node.toString();
  }
}
