package dev.eventide.trends.beam;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.trends.Event;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.beam.sdk.util.CoderUtils;
import org.junit.jupiter.api.Test;

class EventBatchCoderTest {
  private static final String[] NAMES = {"price", "volume", "exchange", "é", "a\u0000b", ""};
  private static final String[] STRINGS = {"NYSE", "", "日本", "x".repeat(300), "NYSE "};

  @Test
  void seededBatchesComeBackEqualWithTheirAttributesInNameOrder() throws IOException {
    Random random = new Random(7);
    for (int round = 0; round < 2_000; round++) {
      List<Event> batch = batch(random);
      List<Event> decoded = roundTrip(batch);
      assertEquals(batch, decoded, "round " + round);
      for (Event e : decoded) {
        List<String> names = new ArrayList<>(e.attributes().keySet());
        List<String> sorted = new ArrayList<>(names);
        sorted.sort(null);
        assertEquals(sorted, names, "round " + round);
      }
    }
  }

  @Test
  void namesRepeatedByEveryEventAreWrittenOnce() throws IOException {
    List<Event> batch = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      batch.add(Event.of("T01", i, "exchange", "NYSE", "price", 12.5, "volume", i));
    }
    int batchBytes = CoderUtils.encodeToByteArray(EventBatchCoder.of(), batch).length;
    int eventBytes = 0;
    for (Event e : batch) {
      eventBytes += CoderUtils.encodeToByteArray(EventCoder.of(), e).length;
    }
    assertTrue(
        batchBytes * 2 < eventBytes,
        "batch " + batchBytes + " bytes, events one by one " + eventBytes + " bytes");
    assertEquals(batch, roundTrip(batch));
  }

  @Test
  void everyTruncatedBatchFailsWithAnIoExceptionAndACorruptedOneNeverWithAnother()
      throws IOException {
    Random random = new Random(11);
    for (int round = 0; round < 300; round++) {
      byte[] bytes = CoderUtils.encodeToByteArray(EventBatchCoder.of(), batch(random));
      int cut = random.nextInt(bytes.length);
      byte[] truncated = Arrays.copyOf(bytes, cut);
      // A stream that ends inside the length is an EOFException, as with Beam's own coders.
      assertThrows(
          IOException.class,
          () -> EventBatchCoder.of().decode(new ByteArrayInputStream(truncated)),
          "cut at " + cut + " of " + bytes.length);
      byte[] corrupted = bytes.clone();
      corrupted[random.nextInt(bytes.length)] ^= (byte) (1 + random.nextInt(255));
      try {
        EventBatchCoder.of().decode(new ByteArrayInputStream(corrupted));
      } catch (IOException expected) {
        // a clear error; a flipped byte inside a value may also decode to another value
      } catch (RuntimeException e) {
        throw new AssertionError("round " + round + ": not a coder error", e);
      }
    }
  }

  private static List<Event> roundTrip(List<Event> batch) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    EventBatchCoder.of().encode(batch, out);
    out.write(42); // what follows in the stream is left there
    ByteArrayInputStream in = new ByteArrayInputStream(out.toByteArray());
    List<Event> decoded = EventBatchCoder.of().decode(in);
    assertEquals(42, in.read());
    return decoded;
  }

  private static List<Event> batch(Random random) {
    int size = random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(40);
    List<Event> batch = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      Map<String, Object> attributes = new LinkedHashMap<>();
      int count = random.nextInt(5);
      for (int a = 0; a < count; a++) {
        attributes.put(NAMES[random.nextInt(NAMES.length)], value(random));
      }
      long time =
          switch (random.nextInt(4)) {
            case 0 -> random.nextLong();
            case 1 -> -random.nextInt(1000);
            default -> random.nextInt(1_000_000);
          };
      batch.add(
          Event.of(random.nextBoolean() ? "T0" + random.nextInt(3) : "Travel", time, attributes));
    }
    return batch;
  }

  private static Object value(Random random) {
    return switch (random.nextInt(5)) {
      case 0 -> STRINGS[random.nextInt(STRINGS.length)];
      case 1 -> BigDecimal.valueOf(random.nextLong(), random.nextInt(41) - 20);
      case 2 ->
          new BigDecimal(new BigInteger(100 + random.nextInt(200), random), random.nextInt(9) - 4);
      case 3 -> random.nextInt(1000);
      default -> Math.round(random.nextDouble() * 10_000) / 100.0;
    };
  }
}
