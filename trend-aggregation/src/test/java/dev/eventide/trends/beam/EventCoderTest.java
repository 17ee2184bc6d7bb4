package dev.eventide.trends.beam;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.eventide.trends.Event;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.util.CoderUtils;
import org.junit.jupiter.api.Test;

class EventCoderTest {
  private static final String[] NAMES = {"price", "volume", "exchange", "é", "日本", ""};

  /**
   * Events are kept in Beam state in this form, so every build must write the same bytes: here
   * against the form written with Beam's own coders, field by field.
   */
  @Test
  void writesTheBytesOfBeamsCodersFieldByFieldAndReadsThemBack() throws IOException {
    Random random = new Random(3);
    for (int round = 0; round < 5_000; round++) {
      Event e = event(random);
      byte[] encoded = CoderUtils.encodeToByteArray(EventCoder.of(), e);
      assertArrayEquals(withBeamsCoders(e), encoded, "round " + round + ": " + e);
      assertEquals(e, CoderUtils.decodeFromByteArray(EventCoder.of(), encoded));
      assertEquals(e.time(), EventCoder.timeOf(encoded), "round " + round);
    }
  }

  @Test
  void theTimeOfBytesThatEndTooSoonIsAClearError() throws IOException {
    byte[] encoded = CoderUtils.encodeToByteArray(EventCoder.of(), Event.of("Travel", -5_000L));
    for (int cut = 0; cut < encoded.length - 1; cut++) {
      byte[] truncated = Arrays.copyOf(encoded, cut);
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> EventCoder.timeOf(truncated));
      assertEquals(true, e.getMessage().startsWith("an encoded event of " + cut + " bytes"));
    }
  }

  private static byte[] withBeamsCoders(Event e) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    StringUtf8Coder.of().encode(e.type(), out);
    VarLongCoder.of().encode(e.time(), out);
    Map<String, Object> sorted = new TreeMap<>(e.attributes());
    VarIntCoder.of().encode(sorted.size(), out);
    for (Map.Entry<String, Object> a : sorted.entrySet()) {
      StringUtf8Coder.of().encode(a.getKey(), out);
      if (a.getValue() instanceof BigDecimal number) {
        BigInteger unscaled = number.unscaledValue();
        if (unscaled.bitLength() < 64) {
          VarIntCoder.of().encode(0, out);
          VarIntCoder.of().encode(number.scale(), out);
          long v = unscaled.longValue();
          VarLongCoder.of().encode((v << 1) ^ (v >> 63), out);
        } else {
          VarIntCoder.of().encode(2, out);
          VarIntCoder.of().encode(number.scale(), out);
          ByteArrayCoder.of().encode(unscaled.toByteArray(), out);
        }
      } else {
        VarIntCoder.of().encode(1, out);
        StringUtf8Coder.of().encode((String) a.getValue(), out);
      }
    }
    return out.toByteArray();
  }

  private static Event event(Random random) {
    Map<String, Object> attributes = new LinkedHashMap<>();
    int count = random.nextInt(5);
    for (int a = 0; a < count; a++) {
      String name = NAMES[random.nextInt(NAMES.length)];
      attributes.put(
          name,
          switch (random.nextInt(4)) {
            case 0 -> random.nextBoolean() ? "NYSE" : "ü".repeat(random.nextInt(200));
            case 1 -> BigDecimal.valueOf(random.nextLong(), random.nextInt(41) - 20);
            case 2 -> new BigDecimal(new BigInteger(70 + random.nextInt(200), random), -3);
            default -> random.nextInt(2000) - 1000;
          });
    }
    long time = random.nextBoolean() ? random.nextLong() : random.nextInt(1_000_000);
    return Event.of(random.nextBoolean() ? "T01" : "Trävel", time, attributes);
  }
}
