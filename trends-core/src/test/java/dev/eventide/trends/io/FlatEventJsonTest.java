package dev.eventide.trends.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.trends.Event;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The fast path reads a line only as the full parser does: on 300,000 seeded random lines made of
 * well-formed and malformed pieces (escapes, exponents, leading zeros, nested values, fields twice,
 * long numbers, text after the object), every line the fast path reads (about one in twelve) gives
 * the full parser's event, and the full parser accepts it.
 */
class FlatEventJsonTest {
  private static final String[] NAMES = {
    "type", "time", "a", "speed", "district", "naïve", "x y", "", "type", "time"
  };

  @Test
  void everyLineTheFastPathReadsIsReadAlikeByTheFullParser() {
    Random random = new Random(7);
    int fast = 0;
    for (int i = 0; i < 300_000; i++) {
      String line = line(random);
      Event simple = FlatEventJson.tryParse(line);
      if (simple == null) {
        continue;
      }
      fast++;
      Event full;
      try {
        full = EventJson.parseFully(line, 1, t -> true);
      } catch (BadEventException e) {
        throw new AssertionError("the fast path read a bad line: " + line + " (" + e + ")", e);
      }
      assertEquals(full, simple, line);
    }
    assertTrue(fast > 20_000, "lines the fast path read: " + fast);
  }

  @Test
  void theCommonFormIsReadOnTheFastPathAndTheRestIsLeftToTheFullParser() {
    Event e =
        FlatEventJson.tryParse(
            " {\"type\": \"Travel\", \"time\": 1700000010205, \"driver\": 1, \"speed\": 25.50,"
                + " \"who\": \"x\"}\r\n");
    assertEquals(
        Event.of(
            "Travel",
            1700000010205L,
            "driver",
            1,
            "speed",
            new java.math.BigDecimal("25.50"),
            "who",
            "x"),
        e);
    assertNull(FlatEventJson.tryParse("{\"type\":\"A\",\"time\":1,\"s\":\"a\\\"b\"}"), "escape");
    assertNull(FlatEventJson.tryParse("{\"type\":\"A\",\"time\":1,\"v\":1e3}"), "exponent");
    assertNull(FlatEventJson.tryParse("{\"type\":\"A\",\"time\":1.0}"), "a time with a fraction");
    assertNull(FlatEventJson.tryParse("{\"type\":\"A\",\"time\":1,\"time\":2}"), "twice");
    assertNull(FlatEventJson.tryParse("{\"type\":\"A\",\"time\":1} x"), "text after");
    assertNull(FlatEventJson.tryParse("{\"type\":\"A\",\"time\":01}"), "a leading zero");
    assertNull(FlatEventJson.tryParse("{\"type\":\"A\",\"time\":1,\"v\":true}"), "true");
    assertNull(FlatEventJson.tryParse("{\"type\":\"\",\"time\":1}"), "an empty type");
  }

  private static String line(Random random) {
    StringBuilder b = new StringBuilder();
    b.append(space(random)).append(random.nextInt(50) == 0 ? "[" : "{");
    int fields = random.nextInt(6);
    boolean typeFirst = random.nextInt(4) != 0;
    if (typeFirst) {
      b.append("\"type\":").append(string(random, true)).append(",\"time\":").append(time(random));
      fields--;
    }
    for (int f = 0; f < fields; f++) {
      if (f > 0 || typeFirst) {
        b.append(random.nextInt(40) == 0 ? "" : ",");
      }
      b.append(space(random))
          .append('"')
          .append(NAMES[random.nextInt(NAMES.length)])
          .append('"')
          .append(space(random))
          .append(':')
          .append(space(random))
          .append(value(random));
    }
    b.append(space(random)).append(random.nextInt(50) == 0 ? "]" : "}");
    switch (random.nextInt(30)) {
      case 0 -> b.append(" x");
      case 1 -> b.append("\r\n");
      case 2 -> b.append("\t ");
      default -> {}
    }
    return b.toString();
  }

  private static String value(Random random) {
    return switch (random.nextInt(8)) {
      case 0, 1, 2 -> number(random);
      case 3, 4 -> string(random, false);
      case 5 -> time(random);
      case 6 -> new String[] {"true", "false", "null", "{}", "[1]", "{\"a\":1}"}[random.nextInt(6)];
      default -> random.nextBoolean() ? "\"" + "é😀x" + "\"" : "-";
    };
  }

  private static String number(Random random) {
    String[] shapes = {
      "0",
      "-0",
      "7",
      "-12",
      "3.25",
      "8.50",
      "-0.0",
      "0.0001",
      "01",
      "1.",
      ".5",
      "1e3",
      "2E-2",
      "1.5e+10",
      "123456789012345678901234567890",
      "-",
      "+1",
      "0x10",
      "NaN",
      "1.7976931348623157E309"
    };
    if (random.nextInt(10) == 0) {
      StringBuilder digits = new StringBuilder(random.nextBoolean() ? "0." : "9");
      int n = 90 + random.nextInt(20);
      for (int i = 0; i < n; i++) {
        digits.append(random.nextInt(10));
      }
      return digits.toString();
    }
    return shapes[random.nextInt(shapes.length)];
  }

  private static String time(Random random) {
    String[] shapes = {
      "1700000010205",
      "0",
      "-5",
      "-0",
      "12.0",
      "\"12\"",
      "9223372036854775807",
      "9223372036854775808",
      "123456789012345678",
      "1e3",
      "007"
    };
    return shapes[random.nextInt(shapes.length)];
  }

  private static String string(Random random, boolean type) {
    String[] shapes = {
      "Travel", "A", "", "a\\\"b", "a\\nb", "tab\there", "é", "\\u0041", "x\\\\", "two words"
    };
    String s = shapes[random.nextInt(type ? 3 : shapes.length)];
    return random.nextInt(60) == 0 ? "\"" + s : "\"" + s + "\"";
  }

  private static String space(Random random) {
    return switch (random.nextInt(10)) {
      case 0 -> " ";
      case 1 -> "\t";
      case 2 -> "  \r";
      default -> "";
    };
  }
}
