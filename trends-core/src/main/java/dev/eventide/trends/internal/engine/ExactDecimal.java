package dev.eventide.trends.internal.engine;

import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * A mutable exact decimal, {@code unscaled × 10^-scale} with a non-negative scale and an {@link
 * ExactInt} unscaled value: sums of attribute values stay on the {@code long} path until they
 * overflow. The scale only grows, to that of the most precise value added.
 */
final class ExactDecimal {
  private static final long[] POWERS_OF_TEN = new long[19];

  static {
    POWERS_OF_TEN[0] = 1;
    for (int i = 1; i < POWERS_OF_TEN.length; i++) {
      POWERS_OF_TEN[i] = POWERS_OF_TEN[i - 1] * 10;
    }
  }

  private final ExactInt unscaled;
  private int scale;

  ExactDecimal() {
    this(new ExactInt(), 0);
  }

  private ExactDecimal(ExactInt unscaled, int scale) {
    this.unscaled = unscaled;
    this.scale = scale;
  }

  /** The exact value of a number, with a scale of at least 0. */
  static ExactDecimal of(BigDecimal value) {
    BigDecimal v = value.scale() < 0 ? value.setScale(0) : value;
    long small = UnscaledLong.of(v);
    return new ExactDecimal(
        small != UnscaledLong.NOT_SMALL ? new ExactInt(small) : new ExactInt(v.unscaledValue()),
        v.scale());
  }

  static ExactDecimal of(long unscaled, int scale) {
    return new ExactDecimal(new ExactInt(unscaled), scale);
  }

  static ExactDecimal of(BigInteger unscaled, int scale) {
    return new ExactDecimal(new ExactInt(unscaled), scale);
  }

  ExactDecimal copy() {
    return new ExactDecimal(unscaled.copy(), scale);
  }

  int scale() {
    return scale;
  }

  ExactInt unscaled() {
    return unscaled;
  }

  BigDecimal toBigDecimal() {
    return new BigDecimal(unscaled.toBigInteger(), scale);
  }

  void set(ExactDecimal other) {
    unscaled.set(other.unscaled);
    scale = other.scale;
  }

  void add(ExactDecimal o) {
    if (o.scale > scale) {
      rescale(o.scale);
    }
    if (o.scale == scale) {
      unscaled.add(o.unscaled);
    } else {
      ExactInt aligned = o.unscaled.copy();
      multiplyByPowerOfTen(aligned, scale - o.scale);
      unscaled.add(aligned);
    }
  }

  /** this *= k. */
  void multiply(ExactInt k) {
    unscaled.multiply(k);
  }

  /** this += value · k. */
  void addProduct(ExactDecimal value, ExactInt k) {
    if (value.scale > scale) {
      rescale(value.scale);
    }
    if (value.scale == scale) {
      unscaled.addProduct(value.unscaled, k);
    } else {
      ExactInt aligned = value.unscaled.copy();
      multiplyByPowerOfTen(aligned, scale - value.scale);
      unscaled.addProduct(aligned, k);
    }
  }

  private void rescale(int newScale) {
    multiplyByPowerOfTen(unscaled, newScale - scale);
    scale = newScale;
  }

  private static void multiplyByPowerOfTen(ExactInt value, int exponent) {
    if (exponent < POWERS_OF_TEN.length) {
      value.multiply(POWERS_OF_TEN[exponent]);
    } else {
      value.multiply(new ExactInt(BigInteger.TEN.pow(exponent)));
    }
  }

  @Override
  public String toString() {
    return toBigDecimal().toPlainString();
  }
}
