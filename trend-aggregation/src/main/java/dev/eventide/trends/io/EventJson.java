package dev.eventide.trends.io;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.eventide.trends.Event;
import java.math.BigDecimal;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Events as JSON lines: {@code {"type":"Travel","time":1700000000000,"driver":7,"speed":8.5}} —
 * {@code time} in epoch milliseconds, every other field an attribute (a number, kept exact, or a
 * string).
 */
public final class EventJson {
  private static final ObjectMapper MAPPER =
      new ObjectMapper()
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true));

  private EventJson() {}

  /**
   * Parses one line.
   *
   * @param lineNumber for the message of the exception
   * @throws BadEventException saying what is wrong with the line
   */
  public static Event parse(String line, long lineNumber) {
    JsonNode node;
    try {
      node = MAPPER.readTree(line);
    } catch (JsonProcessingException e) {
      throw new BadEventException(lineNumber, "not valid JSON: " + e.getOriginalMessage());
    }
    if (node == null || !node.isObject()) {
      throw new BadEventException(lineNumber, "expected a JSON object, but found " + line.strip());
    }
    JsonNode type = node.get("type");
    if (type == null || !type.isTextual() || type.asText().isEmpty()) {
      throw new BadEventException(lineNumber, "\"type\" must be a non-empty string");
    }
    JsonNode time = node.get("time");
    if (time == null || !time.isIntegralNumber() || !time.canConvertToLong()) {
      throw new BadEventException(
          lineNumber, "\"time\" must be an integer number of epoch milliseconds");
    }
    Map<String, Object> attributes = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      String name = field.getKey();
      if (name.equals("type") || name.equals("time")) {
        continue;
      }
      JsonNode value = field.getValue();
      if (value.isNumber()) {
        attributes.put(
            name,
            value.isIntegralNumber()
                ? new BigDecimal(value.bigIntegerValue())
                : value.decimalValue());
      } else if (value.isTextual()) {
        attributes.put(name, value.asText());
      } else {
        throw new BadEventException(
            lineNumber,
            "attribute \"" + name + "\" must be a number or a string, but was " + value);
      }
    }
    return Event.of(type.asText(), time.asLong(), attributes);
  }
}
