package dev.eventide.trends.io;

import dev.eventide.trends.Event;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The fast path of {@link EventJson}: an event line as event files mostly hold it — one flat JSON
 * object, strings without escapes, plain numbers (no exponent, at most {@value #MAX_NUMBER} chars,
 * so always within the range an event may carry), each field once — read in one pass over the
 * line's chars. Anything else (an escape, an exponent, a nested value, a field twice, anything
 * wrong) returns null and is left to the full parser, which reads it or says what is wrong, so a
 * line gives the same event, or the same error, on either path.
 */
final class FlatEventJson {
  /** Longer numbers are left to the full parser, which checks their range. */
  static final int MAX_NUMBER = 100;

  /** Longer names are left to the full parser, whose reader limits them. */
  static final int MAX_NAME = 1_000;

  private final String line;
  private int at;

  /** Whether the number {@link #number} read last has a fraction. */
  private boolean fraction;

  private FlatEventJson(String line) {
    this.line = line;
  }

  /** The event of the line, or null if the line is not of the simple form this path reads. */
  static Event tryParse(String line) {
    return new FlatEventJson(line).event();
  }

  private Event event() {
    skipSpace();
    if (!take('{')) {
      return null;
    }
    String type = null;
    long time = 0;
    boolean timeSeen = false;
    Map<String, Object> attributes = new LinkedHashMap<>();
    skipSpace();
    if (peek() == '}') {
      return null; // no type, no time: the full parser says so
    }
    while (true) {
      skipSpace();
      String name = string();
      if (name == null || name.length() > MAX_NAME) {
        return null;
      }
      skipSpace();
      if (!take(':')) {
        return null;
      }
      skipSpace();
      if (name.equals("type")) {
        if (type != null) {
          return null;
        }
        type = string();
        if (type == null || type.isEmpty()) {
          return null;
        }
      } else if (name.equals("time")) {
        if (timeSeen) {
          return null;
        }
        int start = at;
        if (!number() || fraction || at - start > 18) {
          return null;
        }
        time = Long.parseLong(line, start, at, 10);
        timeSeen = true;
      } else {
        if (attributes.containsKey(name)) {
          return null;
        }
        Object value;
        if (peek() == '"') {
          value = string();
        } else {
          int start = at;
          value = number() ? new BigDecimal(line.substring(start, at)) : null;
        }
        if (value == null) {
          return null;
        }
        attributes.put(name, value);
      }
      skipSpace();
      if (take('}')) {
        break;
      }
      if (!take(',')) {
        return null;
      }
    }
    while (at < line.length() && " \t\r\n".indexOf(line.charAt(at)) >= 0) {
      at++;
    }
    if (at < line.length() || type == null || !timeSeen) {
      return null;
    }
    return Event.of(type, time, attributes);
  }

  /** A string without escapes or control characters, or null. */
  private String string() {
    if (!take('"')) {
      return null;
    }
    int start = at;
    while (at < line.length()) {
      char c = line.charAt(at);
      if (c == '"') {
        return line.substring(start, at++);
      }
      if (c == '\\' || c < 0x20) {
        return null;
      }
      at++;
    }
    return null;
  }

  /** A number of JSON's grammar without exponent and of at most MAX_NUMBER chars. */
  private boolean number() {
    int start = at;
    fraction = false;
    if (peek() == '-') {
      at++;
    }
    if (peek() == '0') {
      at++;
    } else if (isDigit(peek())) {
      while (isDigit(peek())) {
        at++;
      }
    } else {
      return false;
    }
    if (peek() == '.') {
      fraction = true;
      at++;
      if (!isDigit(peek())) {
        return false;
      }
      while (isDigit(peek())) {
        at++;
      }
    }
    char next = peek();
    return next != 'e' && next != 'E' && !isDigit(next) && at - start <= MAX_NUMBER;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private char peek() {
    return at < line.length() ? line.charAt(at) : '\0';
  }

  private boolean take(char c) {
    if (peek() == c) {
      at++;
      return true;
    }
    return false;
  }

  /** JSON's insignificant whitespace. */
  private void skipSpace() {
    while (at < line.length()) {
      char c = line.charAt(at);
      if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
        return;
      }
      at++;
    }
  }
}
