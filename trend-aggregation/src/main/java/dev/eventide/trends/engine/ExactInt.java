package dev.eventide.trends.engine;

import java.math.BigInteger;

/**
 * A mutable exact integer: a {@code long} while the value fits, promoted to a {@link BigInteger}
 * the first time an operation would overflow (checked on every operation, never wrapped). Trend
 * counts grow exponentially with trend length, so both forms are common: short trends stay on the
 * fast path, long Kleene bursts move to the exact one.
 */
final class ExactInt {
  /** The value while {@link #big} is null. */
  private long small;

  /** The value once promoted; null while it fits a long. */
  private BigInteger big;

  ExactInt() {}

  ExactInt(long value) {
    this.small = value;
  }

  ExactInt(BigInteger value) {
    set(value);
  }

  ExactInt copy() {
    ExactInt c = new ExactInt(small);
    c.big = big;
    return c;
  }

  boolean isSmall() {
    return big == null;
  }

  long small() {
    return small;
  }

  int signum() {
    return big == null ? Long.signum(small) : big.signum();
  }

  /** Bits of the magnitude: a measure of what the next operation costs. */
  int bitLength() {
    return big == null ? 64 - Long.numberOfLeadingZeros(Math.abs(small)) : big.bitLength();
  }

  BigInteger toBigInteger() {
    return big == null ? BigInteger.valueOf(small) : big;
  }

  void set(ExactInt other) {
    small = other.small;
    big = other.big;
  }

  /** Sets the value, demoted to the long form when it fits (so encodings are canonical). */
  void set(BigInteger value) {
    if (value.bitLength() < 64) {
      small = value.longValue();
      big = null;
    } else {
      big = value;
    }
  }

  void add(long v) {
    if (big == null) {
      long r = small + v;
      if (((small ^ r) & (v ^ r)) >= 0) {
        small = r;
        return;
      }
      big = BigInteger.valueOf(small);
    }
    set(big.add(BigInteger.valueOf(v)));
  }

  void add(ExactInt o) {
    if (o.big == null) {
      add(o.small);
    } else {
      set(toBigInteger().add(o.big));
    }
  }

  /** this += a · b. */
  void addProduct(ExactInt a, ExactInt b) {
    if (a.big == null && b.big == null) {
      long hi = Math.multiplyHigh(a.small, b.small);
      long lo = a.small * b.small;
      if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
        add(lo);
        return;
      }
    }
    set(toBigInteger().add(a.toBigInteger().multiply(b.toBigInteger())));
  }

  /** this *= m. */
  void multiply(long m) {
    if (big == null) {
      long hi = Math.multiplyHigh(small, m);
      long lo = small * m;
      if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
        small = lo;
        return;
      }
    }
    set(toBigInteger().multiply(BigInteger.valueOf(m)));
  }

  /** this *= m. */
  void multiply(ExactInt m) {
    if (m.big == null) {
      multiply(m.small);
    } else {
      set(toBigInteger().multiply(m.big));
    }
  }

  /** this = this · a + x · b, the step of a shared burst's linear map. */
  void affine(ExactInt a, ExactInt x, ExactInt b) {
    ExactInt r = new ExactInt();
    r.addProduct(this, a);
    r.addProduct(x, b);
    set(r);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ExactInt e && toBigInteger().equals(e.toBigInteger());
  }

  @Override
  public int hashCode() {
    return toBigInteger().hashCode();
  }

  @Override
  public String toString() {
    return big == null ? Long.toString(small) : big.toString();
  }
}
