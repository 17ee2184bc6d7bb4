package dev.eventide.trends.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The long fast path never wraps: every operation agrees with BigInteger, across the boundary. */
class ExactIntTest {
  private static final long[] EDGES = {
    0,
    1,
    -1,
    2,
    Long.MAX_VALUE,
    Long.MIN_VALUE,
    Long.MAX_VALUE - 1,
    Long.MIN_VALUE + 1,
    1L << 32,
    -(1L << 32),
    3037000499L,
    3037000500L,
    -3037000500L
  };

  private static long value(Random random) {
    return switch (random.nextInt(4)) {
      case 0 -> EDGES[random.nextInt(EDGES.length)];
      case 1 -> random.nextLong();
      case 2 -> random.nextInt();
      default -> random.nextInt(100) - 50;
    };
  }

  @Test
  void everyOperationAgreesWithBigIntegerAcrossTheLongBoundary() {
    Random random = new Random(11);
    for (int i = 0; i < 200_000; i++) {
      long a = value(random);
      long b = value(random);
      long c = value(random);
      BigInteger ba = BigInteger.valueOf(a);
      BigInteger bb = BigInteger.valueOf(b);
      BigInteger bc = BigInteger.valueOf(c);

      ExactInt x = new ExactInt(a);
      x.add(b);
      assertEquals(ba.add(bb), x.toBigInteger(), a + " + " + b);

      ExactInt y = new ExactInt(a);
      y.multiply(b);
      assertEquals(ba.multiply(bb), y.toBigInteger(), a + " * " + b);

      ExactInt z = new ExactInt(c);
      z.addProduct(new ExactInt(a), new ExactInt(b));
      assertEquals(bc.add(ba.multiply(bb)), z.toBigInteger(), c + " + " + a + " * " + b);

      // Once big, operations stay exact, and a result that fits again is demoted.
      y.add(new ExactInt(ba.multiply(bb).negate()));
      assertEquals(BigInteger.ZERO, y.toBigInteger());
      assertTrue(y.isSmall());
    }
  }

  private static BigInteger big(Random random) {
    BigInteger v =
        random.nextInt(3) == 0
            ? BigInteger.valueOf(value(random))
            : new BigInteger(1 + random.nextInt(400), random);
    return random.nextBoolean() ? v.negate() : v;
  }

  @Test
  void theInPlaceBigFormAgreesWithBigIntegerForEverySignAndSize() {
    Random random = new Random(17);
    for (int i = 0; i < 100_000; i++) {
      BigInteger a = big(random);
      BigInteger b = big(random);
      BigInteger c = big(random);
      ExactInt x = new ExactInt(a);
      x.add(new ExactInt(b));
      assertEquals(a.add(b), x.toBigInteger(), a + " + " + b);
      x.add(value(random) % 3);
      ExactInt y = new ExactInt(c);
      y.addProduct(new ExactInt(a), new ExactInt(b));
      assertEquals(c.add(a.multiply(b)), y.toBigInteger(), c + " + " + a + " * " + b);
      ExactInt z = new ExactInt(a);
      z.affine(new ExactInt(b), new ExactInt(c), new ExactInt(a));
      assertEquals(a.multiply(b).add(c.multiply(a)), z.toBigInteger());
      ExactInt self = new ExactInt(a);
      self.add(self);
      assertEquals(a.add(a), self.toBigInteger(), "adding a value to itself");
      assertEquals(a.abs().bitLength(), new ExactInt(a).bitLength(), "bits of the magnitude");
    }
  }

  /** Sizes across many limbs, one-limb factors on either side, and operands that are the target. */
  @Test
  void longRunningSumsScaledAndAccumulatedInPlaceStayExact() {
    Random random = new Random(23);
    for (int i = 0; i < 20_000; i++) {
      BigInteger a = random.nextInt(4) == 0 ? big(random) : wide(random);
      BigInteger b = random.nextInt(2) == 0 ? BigInteger.valueOf(value(random)) : wide(random);
      long k = value(random);
      BigInteger bk = BigInteger.valueOf(k);

      ExactInt x = new ExactInt(a);
      x.addProduct(new ExactInt(b), new ExactInt(k));
      assertEquals(a.add(b.multiply(bk)), x.toBigInteger(), a + " + " + b + " * " + k);
      x = new ExactInt(a);
      x.addProduct(new ExactInt(k), new ExactInt(b));
      assertEquals(a.add(bk.multiply(b)), x.toBigInteger(), a + " + " + k + " * " + b);

      ExactInt y = new ExactInt(a);
      y.multiply(k);
      assertEquals(a.multiply(bk), y.toBigInteger(), a + " * " + k);
      y.multiply(new ExactInt(b));
      assertEquals(a.multiply(bk).multiply(b), y.toBigInteger(), a + " * " + k + " * " + b);

      ExactInt self = new ExactInt(a);
      self.addProduct(self, new ExactInt(k));
      assertEquals(a.add(a.multiply(bk)), self.toBigInteger(), "a + a * k, a the target");
      ExactInt square = new ExactInt(a);
      square.multiply(square);
      assertEquals(a.multiply(a), square.toBigInteger(), "a * a, a the target");

      ExactInt z = new ExactInt(a);
      z.affine(new ExactInt(k), new ExactInt(b), new ExactInt(value(random) | 1));
      ExactInt again = new ExactInt(b);
      z.add(again);
      z.add(-k);
      BigInteger expected = z.toBigInteger();
      ExactInt w = new ExactInt(expected);
      assertEquals(expected, w.toBigInteger(), "a BigInteger round trip");
      assertEquals(expected.abs().bitLength(), w.bitLength(), "bits of " + expected);
      assertEquals(expected.bitLength() < 64, w.isSmall(), "the long form is canonical");
    }
  }

  /**
   * Running sums that cross {@link ExactInt#HUGE_LIMBS} and back, with operands of every form
   * (long, limbs, huge) on either side, each step checked against {@code BigInteger}.
   */
  @Test
  void sumsStayExactAcrossTheHugeForm() {
    Random random = new Random(29);
    int edge = 64 * ExactInt.HUGE_LIMBS;
    for (int run = 0; run < 300; run++) {
      BigInteger expected = aroundTheEdge(random, edge);
      ExactInt x = new ExactInt(expected);
      for (int step = 0; step < 40; step++) {
        BigInteger b =
            switch (random.nextInt(3)) {
              case 0 -> BigInteger.valueOf(value(random));
              case 1 -> wide(random);
              default -> aroundTheEdge(random, edge);
            };
        BigInteger k = random.nextBoolean() ? BigInteger.valueOf(value(random)) : wide(random);
        int op = random.nextInt(6);
        switch (op) {
          case 0 -> {
            x.add(new ExactInt(b));
            expected = expected.add(b);
          }
          case 1 -> {
            x.addProduct(new ExactInt(b), new ExactInt(k));
            expected = expected.add(b.multiply(k));
          }
          case 2 -> {
            // Back below the edge, or to 0: the sum less most of itself.
            BigInteger rest = expected.shiftRight(random.nextInt(edge + 64));
            x.add(new ExactInt(rest.subtract(expected)));
            expected = rest;
          }
          case 3 -> {
            x.multiply(new ExactInt(k.signum() == 0 ? BigInteger.ONE : k.shiftRight(3000)));
            expected = expected.multiply(k.signum() == 0 ? BigInteger.ONE : k.shiftRight(3000));
          }
          case 4 -> {
            long m = value(random);
            x.multiply(m);
            expected = expected.multiply(BigInteger.valueOf(m));
            x.add(m);
            expected = expected.add(BigInteger.valueOf(m));
          }
          default -> {
            ExactInt copy = x.copy();
            x = new ExactInt();
            x.set(copy);
            copy.add(1); // the copy is its own
          }
        }
        assertEquals(expected, x.toBigInteger(), "run " + run + ", step " + step + ", op " + op);
        assertEquals(expected.signum(), x.signum());
        assertEquals(expected.abs().bitLength(), x.bitLength());
        assertEquals(expected.toString(), x.toString());
        assertEquals(expected.bitLength() < 64, x.isSmall(), "the long form is canonical");
      }
    }
  }

  /** Magnitudes within 400 bits of {@code edge} bits, either sign. */
  private static BigInteger aroundTheEdge(Random random, int edge) {
    BigInteger v = new BigInteger(edge - 400 + random.nextInt(800), random).setBit(edge - 401);
    return random.nextBoolean() ? v.negate() : v;
  }

  /** Magnitudes of 1 to 4,000 bits, with runs of zero and one bits that stress the carries. */
  private static BigInteger wide(Random random) {
    int bits = 1 + random.nextInt(4000);
    BigInteger v =
        switch (random.nextInt(3)) {
          case 0 -> new BigInteger(bits, random);
          case 1 -> BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE);
          default -> BigInteger.ONE.shiftLeft(bits).add(BigInteger.valueOf(random.nextInt(3)));
        };
    return random.nextBoolean() ? v.negate() : v;
  }

  @Test
  void decimalsAlignTheirScalesExactly() {
    Random random = new Random(5);
    for (int i = 0; i < 50_000; i++) {
      BigDecimal a = BigDecimal.valueOf(value(random), random.nextInt(25) - 3);
      BigDecimal b = BigDecimal.valueOf(value(random), random.nextInt(25) - 3);
      long k = value(random);
      ExactDecimal s = ExactDecimal.of(a);
      s.add(ExactDecimal.of(b));
      assertEquals(0, a.add(b).compareTo(s.toBigDecimal()), a + " + " + b);
      ExactDecimal p = ExactDecimal.of(a);
      p.addProduct(ExactDecimal.of(b), new ExactInt(k));
      assertEquals(
          0,
          a.add(b.multiply(BigDecimal.valueOf(k))).compareTo(p.toBigDecimal()),
          a + "+" + b + "*" + k);
    }
  }

  @Test
  void decimalDigitsAreBigIntegersAtEverySize() {
    Random random = new Random(17);
    for (int i = 0; i < 20_000; i++) {
      int bits = random.nextInt(i < 19_000 ? 700 : 14_000);
      BigInteger v =
          switch (random.nextInt(4)) {
            case 0 -> new BigInteger(bits, random);
            // Chunks of nine zeros and nines inside, and the boundaries between them.
            case 1 ->
                BigInteger.TEN
                    .pow(random.nextInt(400))
                    .add(BigInteger.valueOf(random.nextInt(3) - 1));
            case 2 -> BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE);
            default -> BigInteger.ONE.shiftLeft(bits);
          };
      if (random.nextBoolean()) {
        v = v.negate();
      }
      assertEquals(v.toString(), new ExactInt(v).toString(), "bits " + v.bitLength());
    }
    // Both sides of where the conversion goes through BigInteger.
    for (int limbs = ExactInt.SUBQUADRATIC_LIMBS - 2;
        limbs <= ExactInt.SUBQUADRATIC_LIMBS + 1;
        limbs++) {
      for (BigInteger v :
          List.of(
              new BigInteger(64 * limbs, random).setBit(64 * limbs - 1),
              BigInteger.ONE.shiftLeft(64 * limbs).subtract(BigInteger.ONE).negate())) {
        assertEquals(v.toString(), new ExactInt(v).toString(), "bits " + v.bitLength());
      }
    }
    for (long edge : EDGES) {
      assertEquals(Long.toString(edge), new ExactInt(edge).toString());
      assertEquals(
          BigInteger.valueOf(edge).multiply(BigInteger.valueOf(edge)).toString(),
          new ExactInt(BigInteger.valueOf(edge).multiply(BigInteger.valueOf(edge))).toString());
    }
  }
}
