package dev.eventide.trends.io;

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
 *
 * <p>Written directly, as Jackson's tree model writes it (its escapes, BigDecimal's {@code
 * toString} for a group number with a fraction): a short run no longer loads Jackson's object
 * mapper, some 300 classes, to write its first result, and a long one builds no tree per result.
 */
public final class ResultJson {
  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  private ResultJson() {}

  public static String format(TrendResult r) {
    String value = r.value();
    StringBuilder json = new StringBuilder(64 + (value == null ? 0 : value.length()));
    json.append("{\"query\":");
    string(json, r.query());
    json.append(",\"group\":{");
    boolean first = true;
    for (Map.Entry<String, Object> e : r.group().entrySet()) {
      if (!first) {
        json.append(',');
      }
      first = false;
      string(json, e.getKey());
      json.append(':');
      if (e.getValue() instanceof BigDecimal d) {
        BigDecimal plain = d.stripTrailingZeros();
        json.append(plain.scale() <= 0 ? plain.toBigIntegerExact().toString() : plain.toString());
      } else {
        string(json, (String) e.getValue());
      }
    }
    json.append("},\"window_start\":").append(r.windowStart());
    json.append(",\"window_end\":").append(r.windowEnd());
    json.append(",\"value\":");
    if (value == null) {
      json.append("null");
    } else {
      string(json, value);
    }
    return json.append('}').toString();
  }

  /** A JSON string with Jackson's escapes: short ones where JSON has them, else \\u00XX. */
  private static void string(StringBuilder json, String s) {
    json.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> json.append("\\\"");
        case '\\' -> json.append("\\\\");
        case '\b' -> json.append("\\b");
        case '\t' -> json.append("\\t");
        case '\n' -> json.append("\\n");
        case '\f' -> json.append("\\f");
        case '\r' -> json.append("\\r");
        default -> {
          if (c < 0x20) {
            json.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
          } else {
            json.append(c);
          }
        }
      }
    }
    json.append('"');
  }
}
