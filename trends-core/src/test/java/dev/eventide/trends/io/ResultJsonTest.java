package dev.eventide.trends.io;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.eventide.trends.TrendResult;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Results are written as Jackson's tree model writes them, character for character. */
class ResultJsonTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** The reference: the result as a Jackson tree, in the documented field order. */
  private static String jackson(TrendResult r) {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("query", r.query());
    ObjectNode group = node.putObject("group");
    r.group()
        .forEach(
            (name, value) -> {
              if (value instanceof BigDecimal d) {
                BigDecimal plain = d.stripTrailingZeros();
                if (plain.scale() <= 0) {
                  group.put(name, plain.toBigIntegerExact());
                } else {
                  group.put(name, plain);
                }
              } else {
                group.put(name, (String) value);
              }
            });
    node.put("window_start", r.windowStart());
    node.put("window_end", r.windowEnd());
    node.put("value", r.value());
    return node.toString();
  }

  private static String text(Random random) {
    StringBuilder s = new StringBuilder();
    int n = random.nextInt(8);
    for (int i = 0; i < n; i++) {
      s.append(
          switch (random.nextInt(6)) {
            case 0 -> (char) random.nextInt(0x20); // control characters
            case 1 -> "\"\\/".charAt(random.nextInt(3));
            case 2 -> (char) (0x7f + random.nextInt(0x800)); // DEL and beyond ASCII
            case 3 -> "\uD83D\uDE80"; // a surrogate pair
            default -> (char) ('a' + random.nextInt(26));
          });
    }
    return s.toString();
  }

  private static Object groupValue(Random random) {
    if (random.nextBoolean()) {
      return text(random);
    }
    BigInteger unscaled = new BigInteger(random.nextInt(90), random);
    if (random.nextBoolean()) {
      unscaled = unscaled.negate();
    }
    return new BigDecimal(unscaled, random.nextInt(40) - 20);
  }

  @Test
  void everyResultIsWrittenAsJacksonWritesIt() {
    Random random = new Random(5);
    for (int i = 0; i < 50_000; i++) {
      Map<String, Object> group = new LinkedHashMap<>();
      int attributes = random.nextInt(4);
      for (int a = 0; a < attributes; a++) {
        group.put(text(random) + a, groupValue(random));
      }
      String value =
          switch (random.nextInt(4)) {
            case 0 -> null;
            case 1 -> new BigInteger(random.nextInt(3000), random).toString();
            case 2 ->
                new BigDecimal(new BigInteger(60, random), random.nextInt(30)).toPlainString();
            default -> "-" + random.nextInt(1000);
          };
      TrendResult r =
          new TrendResult(text(random), group, random.nextLong(), random.nextLong(), value);
      assertEquals(jackson(r), ResultJson.format(r));
    }
  }
}
