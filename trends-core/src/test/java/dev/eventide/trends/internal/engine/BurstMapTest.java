package dev.eventide.trends.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A burst's coefficients composed in longs equal the exact composition, values and scales of the
 * sums alike, wherever the longs hold them; where they do not, the long path declines.
 */
class BurstMapTest {

  @Test
  void coefficientsInLongsEqualTheExactOnesOrAreDeclined() {
    Random random = new Random(13);
    int inLongs = 0;
    int declined = 0;
    for (int round = 0; round < 20_000; round++) {
      int groups = 1 + random.nextInt(round % 3 == 0 ? 80 : 20);
      long[] sizes = new long[groups];
      for (int j = 0; j < groups; j++) {
        sizes[j] = random.nextInt(10) == 0 ? 1 + random.nextInt(1_000) : 1 + random.nextInt(3);
      }
      Map<String, ExactDecimal[]> sums = new LinkedHashMap<>();
      for (int a = random.nextInt(3); a > 0; a--) {
        ExactDecimal[] perGroup = new ExactDecimal[groups];
        for (int j = 0; j < groups; j++) {
          perGroup[j] = ExactDecimal.of(groupSum(random));
        }
        sums.put("a" + a, perGroup);
      }
      int last = random.nextBoolean() ? groups : groups - 1;
      BurstMap exact = new BurstMap();
      BurstMap.compose(exact, sizes, sums, last);
      BurstMap fast = new BurstMap();
      if (!BurstMap.composeInLongs(fast, sizes, sums, last)) {
        declined++;
        assertEquals(BigInteger.ONE, fast.alpha.toBigInteger(), "round " + round + ": touched");
        assertTrue(fast.sums.isEmpty(), "round " + round + ": touched");
        continue;
      }
      inLongs++;
      assertEquals(exact.alpha.toBigInteger(), fast.alpha.toBigInteger(), "round " + round);
      assertEquals(exact.beta.toBigInteger(), fast.beta.toBigInteger(), "round " + round);
      assertEquals(exact.gamma.toBigInteger(), fast.gamma.toBigInteger(), "round " + round);
      assertEquals(exact.delta.toBigInteger(), fast.delta.toBigInteger(), "round " + round);
      assertEquals(exact.sums.keySet(), fast.sums.keySet());
      for (String a : exact.sums.keySet()) {
        for (int k = 0; k < 2; k++) {
          // BigDecimal#equals compares the scale too: results print with it.
          assertEquals(
              exact.sums.get(a)[k].toBigDecimal(),
              fast.sums.get(a)[k].toBigDecimal(),
              "round " + round + ", " + a + ", " + (k == 0 ? "sigma" : "tau"));
        }
      }
    }
    assertTrue(inLongs > 5_000, "in longs " + inLongs);
    assertTrue(declined > 1_000, "declined " + declined);
  }

  @Test
  void aBurstTooLongForLongsIsDeclined() {
    long[] sizes = new long[64];
    java.util.Arrays.fill(sizes, 1);
    assertFalse(BurstMap.composeInLongs(new BurstMap(), sizes, Map.of(), 64)); // α = 2^64
    assertTrue(BurstMap.composeInLongs(new BurstMap(), sizes, Map.of(), 50));
    BurstMap of = BurstMap.of(sizes, Map.of(), false);
    assertEquals(BigInteger.ONE.shiftLeft(64), of.alpha.toBigInteger());
  }

  private static BigDecimal groupSum(Random random) {
    return switch (random.nextInt(6)) {
      case 0 -> new BigDecimal(new BigInteger(70 + random.nextInt(60), random), random.nextInt(3));
      case 1 -> BigDecimal.valueOf(random.nextLong() >> random.nextInt(64), random.nextInt(25));
      default -> BigDecimal.valueOf(random.nextInt(100_000) - 50_000, random.nextInt(4));
    };
  }
}
