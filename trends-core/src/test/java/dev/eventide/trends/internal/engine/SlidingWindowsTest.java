package dev.eventide.trends.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link SlidingWindows} against the same questions answered in unbounded integers: seeded random
 * windows and times, in the middle of the range and at both ends of it, where the arithmetic the
 * engines had (floorDiv(t − within, slide)) overflowed.
 */
class SlidingWindowsTest {
  private static final BigInteger MIN = BigInteger.valueOf(Long.MIN_VALUE);
  private static final BigInteger MAX = BigInteger.valueOf(Long.MAX_VALUE);

  @Test
  void answersAsUnboundedIntegersDoAcrossTheWholeRange() {
    SplittableRandom random = new SplittableRandom(48);
    for (int i = 0; i < 200_000; i++) {
      long slide = 1 + random.nextLong(i % 2 == 0 ? 100 : Long.MAX_VALUE / 4);
      long bound = slide <= Long.MAX_VALUE / 48 ? slide * 6 : Long.MAX_VALUE / 8;
      long within =
          random.nextBoolean() ? slide * (1 + random.nextLong(5)) : 1 + random.nextLong(bound);
      if (within <= 0) {
        continue; // slide · k overflowed: not a window
      }
      long t = time(random);
      check(SlidingWindows.of(within, slide), t);
    }
  }

  @Test
  void theDocumentedExampleAndTheEndsOfTheRange() {
    SlidingWindows w = SlidingWindows.of(20_000, 5_000);
    assertEquals(30_000, w.firstEnd(26_000));
    assertEquals(45_000, w.lastEnd(26_000));
    assertEquals(40_000, w.lastEndAtOrBefore(44_999));
    for (long t : List.of(Long.MIN_VALUE, Long.MIN_VALUE + 1, Long.MAX_VALUE, Long.MAX_VALUE - 1)) {
      for (long[] ws : new long[][] {{3, 3}, {10, 3}, {7, 10}, {Long.MAX_VALUE, 1}, {1, 7}}) {
        check(SlidingWindows.of(ws[0], ws[1]), t);
      }
    }
  }

  @Test
  void refusesWindowsThatAreNotPositive() {
    assertThrows(IllegalArgumentException.class, () -> SlidingWindows.of(0, 1));
    assertThrows(IllegalArgumentException.class, () -> SlidingWindows.of(10, -1));
  }

  private static long time(SplittableRandom random) {
    return switch (random.nextInt(3)) {
      case 0 -> Long.MIN_VALUE + random.nextLong(1_000_000);
      case 1 -> Long.MAX_VALUE - random.nextLong(1_000_000);
      default -> random.nextLong(-1_000_000_000_000L, 1_000_000_000_000L);
    };
  }

  private static void check(SlidingWindows w, long t) {
    BigInteger s = BigInteger.valueOf(w.slide());
    BigInteger within = BigInteger.valueOf(w.within());
    BigInteger time = BigInteger.valueOf(t);
    BigInteger last = floorDiv(time, s);
    // The first k with k·s + within > t: floor((t − within) / s) + 1.
    BigInteger first = floorDiv(time.subtract(within), s).add(BigInteger.ONE);
    String what = w + " at " + t;
    assertEquals(last.longValueExact(), w.lastIndex(t), what + ": last index");
    assertEquals(saturate(first), w.firstIndex(t), what + ": first index");
    assertEquals(saturate(first.multiply(s).add(within)), w.firstEnd(t), what + ": first end");
    assertEquals(saturate(last.multiply(s).add(within)), w.lastEnd(t), what + ": last end");
    BigInteger endBy = floorDiv(time.subtract(within), s).multiply(s).add(within);
    assertEquals(
        endBy.compareTo(MIN) < 0 ? Long.MIN_VALUE : endBy.longValueExact(),
        w.lastEndAtOrBefore(t),
        what + ": last end at or before");
    List<Long> ks = new ArrayList<>(List.of(saturate(first), last.longValueExact()));
    for (long k : ks) {
      BigInteger start = BigInteger.valueOf(k).multiply(s);
      assertEquals(saturate(start), w.start(k), what + ": start of " + k);
      assertEquals(
          start.compareTo(MIN) >= 0 && start.add(within).compareTo(MAX) <= 0,
          w.isExact(k),
          what + ": exact " + k);
    }
  }

  private static BigInteger floorDiv(BigInteger a, BigInteger b) {
    BigInteger[] qr = a.divideAndRemainder(b);
    return qr[1].signum() < 0 ? qr[0].subtract(BigInteger.ONE) : qr[0];
  }

  private static long saturate(BigInteger v) {
    return v.compareTo(MAX) > 0
        ? Long.MAX_VALUE
        : v.compareTo(MIN) < 0 ? Long.MIN_VALUE : v.longValueExact();
  }
}
