package dev.eventide.trends;

import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One event of the stream: a type, a timestamp in epoch milliseconds and attributes whose values
 * are numbers ({@link BigDecimal}, exact) or strings. Immutable.
 *
 * <pre>{@code
 * Event travel = Event.of("Travel", 2_000, "driver", 7, "district", 3, "speed", 8.5);
 * travel.type();                  // "Travel"
 * travel.attribute("speed");      // BigDecimal 8.5
 * }</pre>
 */
public final class Event implements java.io.Serializable {
  private static final long serialVersionUID = 2L;

  private final String type;
  private final long time;
  private final Attributes attributes;

  private Event(String type, long time, Attributes attributes) {
    this.type = type;
    this.time = time;
    this.attributes = attributes;
  }

  /**
   * Returns an event of the given type and time with the given attributes; each value must be a
   * {@link BigDecimal}, another {@link Number} (converted exactly) or a {@link String}.
   */
  public static Event of(String type, long time, Map<String, ?> attributes) {
    Objects.requireNonNull(type, "type");
    int size = attributes.size();
    String[] names = new String[size];
    Object[] values = new Object[size];
    int i = 0;
    for (Map.Entry<String, ?> a : attributes.entrySet()) {
      if (i == size) {
        throw new IllegalArgumentException(
            "the attributes' map gave more entries than its size, " + size);
      }
      names[i] = Objects.requireNonNull(a.getKey(), "an attribute's name");
      values[i] = normalize(a.getKey(), a.getValue());
      i++;
    }
    if (i != size) {
      throw new IllegalArgumentException(
          "the attributes' map gave " + i + " entries, not its size, " + size);
    }
    return new Event(type, time, new Attributes(names, values));
  }

  /** Returns an event with attributes given as alternating names and values. */
  public static Event of(String type, long time, Object... namesAndValues) {
    if (namesAndValues.length % 2 != 0) {
      throw new IllegalArgumentException("attributes must come as name, value pairs");
    }
    Map<String, Object> attributes = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      attributes.put((String) namesAndValues[i], namesAndValues[i + 1]);
    }
    return of(type, time, attributes);
  }

  private static Object normalize(String name, Object value) {
    if (value instanceof BigDecimal || value instanceof String) {
      return value;
    }
    if (value instanceof Long || value instanceof Integer || value instanceof Short) {
      return BigDecimal.valueOf(((Number) value).longValue());
    }
    if (value instanceof Double || value instanceof Float) {
      return new BigDecimal(value.toString());
    }
    throw new IllegalArgumentException(
        "attribute '" + name + "' must be a number or a string, but was " + value);
  }

  public String type() {
    return type;
  }

  public long time() {
    return time;
  }

  /** The attribute's value ({@link BigDecimal} or {@link String}), or null if it has none. */
  public Object attribute(String name) {
    return attributes.get(name);
  }

  public Map<String, Object> attributes() {
    return attributes;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Event e
        && e.time == time
        && e.type.equals(type)
        && e.attributes.equals(attributes);
  }

  @Override
  public int hashCode() {
    return Objects.hash(type, time, attributes);
  }

  @Override
  public String toString() {
    return type + "@" + time + attributes;
  }
}
