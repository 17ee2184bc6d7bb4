package dev.eventide.trends.io;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import dev.eventide.trends.Event;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Events as JSON lines: {@code {"type":"Travel","time":1700000000000,"driver":7,"speed":8.5}} —
 * {@code time} in epoch milliseconds (an integer that fits a {@code long}), every other field an
 * attribute: a string, or a number kept exact whose magnitude is within a {@code double}'s range
 * (0, or from {@value #SMALLEST} to {@value #LARGEST}).
 *
 * <pre>{@code
 * Event e = EventJson.parse("{\"type\":\"Travel\",\"time\":2000,\"driver\":7,\"speed\":8.5}", 1);
 * // line 1 of its file, for the message of a bad line
 * }</pre>
 *
 * <p>A line is one JSON object and nothing else: text after the object (a second object, a comma)
 * and a field named twice make the line bad, never silently half-read.
 */
public final class EventJson {
  /** The smallest magnitude of a non-zero attribute number, a double's smallest. */
  public static final String SMALLEST = "4.9E-324";

  /** The largest magnitude of an attribute number, a double's largest. */
  public static final String LARGEST = "1.7976931348623157E308";

  private static final BigDecimal SMALLEST_MAGNITUDE = new BigDecimal(SMALLEST);
  private static final BigDecimal LARGEST_MAGNITUDE = new BigDecimal(LARGEST);

  /** Jackson, loaded with the first line the fast path does not read (none in most files). */
  private static final class Jackson {
    static final JsonFactory JSON = new JsonFactory();
  }

  private EventJson() {}

  /**
   * Parses one line.
   *
   * @param lineNumber for the message of the exception
   * @throws BadEventException saying what is wrong with the line
   */
  public static Event parse(String line, long lineNumber) {
    return parse(line, lineNumber, type -> true);
  }

  /**
   * Parses one line whose event matters only if {@code typeIsRead} holds for its type: an event of
   * a type no query reads is returned (to be ignored) even if an attribute is of a kind or range no
   * event may carry, without that attribute. A line that is not one JSON object with a type and a
   * time is bad whatever its type.
   *
   * @param lineNumber for the message of the exception
   * @throws BadEventException saying what is wrong with the line
   */
  public static Event parse(String line, long lineNumber, Predicate<String> typeIsRead) {
    Event simple = FlatEventJson.tryParse(line);
    return simple != null ? simple : parseFully(line, lineNumber, typeIsRead);
  }

  /** The full parser: every line, with what is wrong with a bad one. */
  static Event parseFully(String line, long lineNumber, Predicate<String> typeIsRead) {
    try (JsonParser p = Jackson.JSON.createParser(line)) {
      return read(p, line, lineNumber, typeIsRead);
    } catch (JsonProcessingException e) {
      // Jackson's limits (a number of more than 1,000 digits) report no location.
      String column =
          e.getLocation() == null || e.getLocation().getColumnNr() < 1
              ? ""
              : " at column " + e.getLocation().getColumnNr();
      throw new BadEventException(
          lineNumber,
          "not valid JSON"
              + column
              + ": "
              + String.valueOf(e.getOriginalMessage()).lines().findFirst().orElse(""));
    } catch (IOException e) {
      throw new UncheckedIOException("could not read a line held in memory", e);
    } catch (BadEventException e) {
      throw e;
    } catch (RuntimeException e) {
      // Whatever the parser could not handle is this line's fault: a bad line, never a crash.
      throw new BadEventException(lineNumber, "could not be read as an event: " + e);
    }
  }

  private static Event read(
      JsonParser p, String line, long lineNumber, Predicate<String> typeIsRead) throws IOException {
    if (p.nextToken() != JsonToken.START_OBJECT) {
      throw new BadEventException(lineNumber, "expected a JSON object, but found " + line.strip());
    }
    String type = null;
    Long time = null;
    Map<String, Object> attributes = new LinkedHashMap<>();
    Set<String> badAttributes = new HashSet<>();
    BadEventException badAttribute = null;
    for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      boolean twice;
      if (name.equals("type")) {
        twice = type != null;
        type = typeOf(p, value, lineNumber);
      } else if (name.equals("time")) {
        twice = time != null;
        time = timeOf(p, value, lineNumber);
      } else {
        twice = attributes.containsKey(name) || badAttributes.contains(name);
        try {
          attributes.put(name, attributeOf(p, name, value, lineNumber));
        } catch (BadEventException e) {
          // Decided once the type is known: an event no query reads is ignored, whatever it holds.
          p.skipChildren();
          badAttributes.add(name);
          if (badAttribute == null) {
            badAttribute = e;
          }
        }
      }
      if (twice) {
        throw new BadEventException(lineNumber, "field \"" + name + "\" appears more than once");
      }
    }
    int end = (int) p.currentLocation().getCharOffset();
    while (end < line.length() && " \t\r\n".indexOf(line.charAt(end)) >= 0) {
      end++;
    }
    if (end < line.length()) {
      throw new BadEventException(
          lineNumber,
          "text after the event's JSON object at column "
              + (end + 1)
              + ": one event per line, and nothing else on it");
    }
    if (type == null) {
      throw new BadEventException(lineNumber, "\"type\" must be a non-empty string");
    }
    if (time == null) {
      throw new BadEventException(
          lineNumber, "\"time\" must be an integer number of epoch milliseconds");
    }
    if (badAttribute != null && typeIsRead.test(type)) {
      throw badAttribute;
    }
    return Event.of(type, time, attributes);
  }

  private static String typeOf(JsonParser p, JsonToken value, long lineNumber) throws IOException {
    if (value != JsonToken.VALUE_STRING || p.getText().isEmpty()) {
      throw new BadEventException(lineNumber, "\"type\" must be a non-empty string");
    }
    return p.getText();
  }

  private static long timeOf(JsonParser p, JsonToken value, long lineNumber) throws IOException {
    if (value != JsonToken.VALUE_NUMBER_INT) {
      throw new BadEventException(
          lineNumber, "\"time\" must be an integer number of epoch milliseconds");
    }
    if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
      throw new BadEventException(
          lineNumber,
          "\"time\" "
              + p.getText()
              + " is out of the range of epoch milliseconds ("
              + Long.MIN_VALUE
              + " to "
              + Long.MAX_VALUE
              + ")");
    }
    return p.getLongValue();
  }

  private static Object attributeOf(JsonParser p, String name, JsonToken value, long lineNumber)
      throws IOException {
    if (value == JsonToken.VALUE_STRING) {
      return p.getText();
    }
    if (value != JsonToken.VALUE_NUMBER_INT && value != JsonToken.VALUE_NUMBER_FLOAT) {
      throw new BadEventException(
          lineNumber,
          "attribute \"" + name + "\" must be a number or a string, but was " + describe(value));
    }
    BigDecimal number = p.getDecimalValue();
    BigDecimal magnitude = number.abs();
    if (number.signum() != 0
        && (magnitude.compareTo(LARGEST_MAGNITUDE) > 0
            || magnitude.compareTo(SMALLEST_MAGNITUDE) < 0)) {
      throw new BadEventException(
          lineNumber,
          "attribute \""
              + name
              + "\" is "
              + p.getText()
              + ", out of the range of numbers an event may carry (0, or a magnitude from "
              + SMALLEST
              + " to "
              + LARGEST
              + ")");
    }
    return number;
  }

  private static String describe(JsonToken value) {
    return switch (value) {
      case START_OBJECT -> "an object";
      case START_ARRAY -> "an array";
      case VALUE_TRUE -> "true";
      case VALUE_FALSE -> "false";
      case VALUE_NULL -> "null";
      default -> String.valueOf(value);
    };
  }
}
