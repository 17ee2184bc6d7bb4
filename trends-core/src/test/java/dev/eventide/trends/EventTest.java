package dev.eventide.trends;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class EventTest {

  /** The attributes read as the map they were given would, for few names and for many. */
  @Test
  void attributesBehaveAsAnUnmodifiableCopyOfTheGivenMap() throws Exception {
    Random random = new Random(5);
    for (int round = 0; round < 2_000; round++) {
      Map<String, Object> given = new LinkedHashMap<>();
      int size = random.nextInt(round % 2 == 0 ? 6 : 30);
      for (int i = 0; i < size; i++) {
        String name = "a" + random.nextInt(40);
        given.put(name, random.nextBoolean() ? "s" + random.nextInt(5) : new BigDecimal(i));
      }
      Event e = Event.of("T", round, given);
      Map<String, Object> attributes = e.attributes();
      assertEquals(given, attributes, "round " + round);
      assertEquals(attributes, given, "round " + round);
      assertEquals(new HashMap<>(given), attributes, "round " + round);
      assertEquals(given.hashCode(), attributes.hashCode(), "round " + round);
      assertEquals(given.toString(), attributes.toString(), "round " + round);
      assertEquals(new ArrayList<>(given.keySet()), new ArrayList<>(attributes.keySet()));
      for (int n = 0; n < 40; n++) {
        String name = "a" + n;
        assertEquals(given.get(name), e.attribute(name), "round " + round + ", " + name);
        assertEquals(given.containsKey(name), attributes.containsKey(name));
      }
      assertNull(e.attribute("absent"));
      assertEquals(e, Event.of("T", round, new HashMap<>(given)));
      assertEquals(e.hashCode(), Event.of("T", round, new HashMap<>(given)).hashCode());
      assertEquals(e, roundTrip(e), "round " + round);
    }
  }

  @Test
  void attributesCannotBeChanged() {
    Event e = Event.of("T", 1, "a", 1, "b", "x");
    Map<String, Object> attributes = e.attributes();
    assertThrows(UnsupportedOperationException.class, () -> attributes.put("c", "y"));
    assertThrows(UnsupportedOperationException.class, () -> attributes.remove("a"));
    assertThrows(UnsupportedOperationException.class, attributes::clear);
    assertThrows(
        UnsupportedOperationException.class,
        () -> attributes.entrySet().iterator().next().setValue("z"));
    var it = attributes.keySet().iterator();
    it.next();
    assertThrows(UnsupportedOperationException.class, it::remove);
    assertEquals(Map.of("a", BigDecimal.ONE, "b", "x"), attributes);
  }

  @Test
  void valuesAreNormalizedAndBadOnesNamed() {
    Event e = Event.of("T", 1, "i", 3, "l", 4L, "d", 2.5, "s", "x", "n", new BigDecimal("1.10"));
    assertEquals(BigDecimal.valueOf(3), e.attribute("i"));
    assertEquals(BigDecimal.valueOf(4), e.attribute("l"));
    assertEquals(new BigDecimal("2.5"), e.attribute("d"));
    assertEquals("x", e.attribute("s"));
    assertEquals(new BigDecimal("1.10"), e.attribute("n"));
    IllegalArgumentException bad =
        assertThrows(IllegalArgumentException.class, () -> Event.of("T", 1, "flag", true));
    assertEquals("attribute 'flag' must be a number or a string, but was true", bad.getMessage());
    Map<String, Object> nullName = new HashMap<>();
    nullName.put(null, 1);
    assertThrows(NullPointerException.class, () -> Event.of("T", 1, nullName));
    // A name given twice keeps its first place and its last value, as a map's put does.
    Event twice = Event.of("T", 1, "a", 1, "b", 2, "a", 3);
    assertEquals(List.of("a", "b"), new ArrayList<>(twice.attributes().keySet()));
    assertEquals(BigDecimal.valueOf(3), twice.attribute("a"));
    assertFalse(twice.attributes().isEmpty());
    assertTrue(Event.of("T", 1).attributes().isEmpty());
  }

  private static Event roundTrip(Event e) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(e);
    }
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (Event) in.readObject();
    }
  }
}
