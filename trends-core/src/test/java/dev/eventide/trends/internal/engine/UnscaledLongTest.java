package dev.eventide.trends.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.api.Test;

class UnscaledLongTest {
  @Test
  void readsTheUnscaledValueOfDecimalsOfUpToEighteenDigits() {
    assertEquals(0, UnscaledLong.of(BigDecimal.ZERO));
    assertEquals(1500, UnscaledLong.of(new BigDecimal("1.500")));
    assertEquals(-4207, UnscaledLong.of(new BigDecimal("-42.07")));
    assertEquals(1, UnscaledLong.of(new BigDecimal("1E+3")));
    assertEquals(999_999_999_999_999_999L, UnscaledLong.of(new BigDecimal("999999999999999999")));
    assertEquals(
        -999_999_999_999_999_999L, UnscaledLong.of(new BigDecimal("-99999999999999999.9")));
    // Held as a BigInteger inside the BigDecimal, yet small.
    assertEquals(5, UnscaledLong.of(new BigDecimal(BigInteger.valueOf(5), 1)));
  }

  @Test
  void saysNotSmallFromNineteenDigitsOn() {
    assertEquals(UnscaledLong.NOT_SMALL, UnscaledLong.of(new BigDecimal("1234567890123456789")));
    assertEquals(UnscaledLong.NOT_SMALL, UnscaledLong.of(BigDecimal.valueOf(Long.MIN_VALUE)));
    assertEquals(
        UnscaledLong.NOT_SMALL, UnscaledLong.of(new BigDecimal("-12345678901234567890.5")));
  }

  @Test
  void agreesWithTheUnscaledBigInteger() {
    Random random = new Random(38);
    for (int i = 0; i < 100_000; i++) {
      BigInteger unscaled = new BigInteger(1 + random.nextInt(70), random);
      if (random.nextBoolean()) {
        unscaled = unscaled.negate();
      }
      BigDecimal d = new BigDecimal(unscaled, random.nextInt(41) - 20);
      long small = UnscaledLong.of(d);
      if (d.precision() <= 18) {
        assertEquals(unscaled.longValueExact(), small, d.toString());
      } else {
        assertEquals(UnscaledLong.NOT_SMALL, small, d.toString());
      }
    }
  }
}
