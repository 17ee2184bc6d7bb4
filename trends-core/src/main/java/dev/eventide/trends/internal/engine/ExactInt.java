package dev.eventide.trends.internal.engine;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A mutable exact integer: a {@code long} while the value fits, promoted to an arbitrary-precision
 * magnitude the first time an operation would overflow (checked on every operation, never wrapped).
 * Trend counts grow exponentially with trend length, so both forms are common: short trends stay on
 * the fast path, long Kleene bursts move to the exact one. The big form is updated in place, so
 * that adding to or scaling a running sum of thousands of bits neither allocates nor copies it:
 * that is where the executor spends its time on long bursts.
 *
 * <p>The magnitude is kept in unsigned 64-bit limbs (little-endian), with 128-bit limb products
 * from {@link Math#multiplyHigh}: a running sum of b bits costs b/64 steps per addition or
 * multiplication by a one-limb coefficient. What pays is the product by a coefficient of several
 * limbs (deferred bursts, {@link DeferredBursts}): a quarter of the limb products of 32-bit limbs.
 * From {@link #HUGE_LIMBS} limbs on (windows of hundreds of thousands of Kleene events) the value
 * is a {@code BigInteger} instead, whose product is HotSpot's intrinsic ({@link #huge}).
 */
final class ExactInt {

  /** The value while {@link #mag} is null. */
  private long small;

  /** The magnitude once promoted, limbs [0, len), mag[len − 1] != 0; null on the long path. */
  private long[] mag;

  private int len;

  /** +1 or −1 in the big form. */
  private int sign;

  /** A buffer for products that cannot be formed in place, reused (may be null). */
  private long[] spare;

  /**
   * The value once it has {@link #HUGE_LIMBS} limbs (then {@link #mag} is null and {@link #small}
   * 0): a running sum of a long window, which a settle multiplies by a coefficient of several
   * limbs. {@code BigInteger}'s product there is an intrinsic of HotSpot, 1.3–1.6 times as fast on
   * Java 17 as the limb loop even with the copy it makes (a settle of 1,000 limbs by 8: 35 µs
   * against 47–58 µs); an addition copies it where the limbs are updated in place, but those come
   * seldom at that size. Immutable, so copies share it.
   */
  private BigInteger huge;

  /** Limbs from which the value is kept as a {@code BigInteger} ({@link #huge}). */
  static final int HUGE_LIMBS = 128;

  ExactInt() {}

  ExactInt(long value) {
    this.small = value;
  }

  ExactInt(BigInteger value) {
    set(value);
  }

  ExactInt copy() {
    ExactInt c = new ExactInt(small);
    c.huge = huge; // immutable
    if (mag != null) {
      if (WordCounts.ENABLED) {
        WordCounts.copy(len);
      }
      c.mag = Arrays.copyOf(mag, len);
      c.len = len;
      c.sign = sign;
    }
    return c;
  }

  /** Whether the value fits a long (then {@link #small()} is it). */
  boolean isSmall() {
    return mag == null && huge == null;
  }

  long small() {
    return small;
  }

  int signum() {
    if (huge != null) {
      return huge.signum();
    }
    return mag == null ? Long.signum(small) : sign;
  }

  /** Bits of the magnitude: a measure of what the next operation costs. */
  int bitLength() {
    if (huge != null) {
      return huge.abs().bitLength();
    }
    if (mag == null) {
      return 64 - Long.numberOfLeadingZeros(abs(small));
    }
    return 64 * len - Long.numberOfLeadingZeros(mag[len - 1]);
  }

  BigInteger toBigInteger() {
    if (huge != null) {
      return huge;
    }
    if (mag == null) {
      return BigInteger.valueOf(small);
    }
    byte[] bytes = new byte[8 * len];
    for (int i = 0; i < len; i++) {
      long limb = mag[i];
      int at = bytes.length - 8 * (i + 1);
      for (int k = 0; k < 8; k++) {
        bytes[at + k] = (byte) (limb >>> (56 - 8 * k));
      }
    }
    return new BigInteger(sign, bytes);
  }

  void set(ExactInt other) {
    small = other.small;
    huge = other.huge;
    if (other.mag == null) {
      mag = null;
    } else {
      if (WordCounts.ENABLED) {
        WordCounts.copy(other.len);
      }
      mag = Arrays.copyOf(other.mag, other.len);
      len = other.len;
      sign = other.sign;
    }
  }

  void set(long value) {
    small = value;
    mag = null;
    huge = null;
  }

  /** Sets the value, in the long form when it fits (so that encodings are canonical). */
  void set(BigInteger value) {
    huge = null;
    if (value.bitLength() < 64) {
      small = value.longValue();
      mag = null;
      return;
    }
    if (value.bitLength() > 64 * (HUGE_LIMBS - 1)) {
      setHuge(value);
      return;
    }
    mag = magnitudeOf(value);
    len = mag.length;
    sign = value.signum();
    small = 0;
    normalize();
  }

  /** The limbs of |value|, little-endian. */
  private static long[] magnitudeOf(BigInteger value) {
    byte[] bytes = value.abs().toByteArray();
    long[] limbs = new long[(bytes.length + 7) / 8];
    for (int b = 0; b < bytes.length; b++) {
      int fromEnd = bytes.length - 1 - b;
      limbs[fromEnd / 8] |= (bytes[b] & 0xFFL) << (8 * (fromEnd % 8));
    }
    return limbs;
  }

  void add(long v) {
    if (huge != null) {
      setHuge(huge.add(BigInteger.valueOf(v)));
      return;
    }
    if (mag == null) {
      long r = small + v;
      if (((small ^ r) & (v ^ r)) >= 0) {
        small = r;
        return;
      }
      promote();
    }
    addLimb(abs(v), v < 0 ? -1 : 1);
    normalize();
  }

  void add(ExactInt o) {
    if (huge != null || o.huge != null) {
      if (WordCounts.ENABLED) {
        WordCounts.add(Math.max(limbs(), o.limbs()));
      }
      setHuge(toBigInteger().add(o.toBigInteger()));
      return;
    }
    if (o.mag == null) {
      add(o.small);
      return;
    }
    if (mag == null) {
      if (small == 0) {
        // A copy (a new prefix sum starts as one): no carries to add, room for the next one.
        if (WordCounts.ENABLED) {
          WordCounts.copy(o.len);
        }
        mag = Arrays.copyOf(o.mag, o.len + 1);
        len = o.len;
        sign = o.sign;
        return;
      }
      promote(o.len + 1);
    }
    addSigned(o.mag, o.len, o.sign);
    normalize();
  }

  /** this += a · b. */
  void addProduct(ExactInt a, ExactInt b) {
    if (huge != null || a.huge != null || b.huge != null) {
      countProduct(a, b);
      setHuge(toBigInteger().add(a.toBigInteger().multiply(b.toBigInteger())));
      return;
    }
    if (a.mag == null && b.mag == null) {
      long hi = Math.multiplyHigh(a.small, b.small);
      long lo = a.small * b.small;
      if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
        add(lo);
        return;
      }
    }
    int productSign = a.signum() * b.signum();
    if (productSign == 0) {
      return;
    }
    if (mag == null) {
      promote((a.mag == null ? 1 : a.len) + (b.mag == null ? 1 : b.len) + 1);
    }
    if (a.mag == null && b.mag == null) {
      long x = abs(a.small);
      long y = abs(b.small);
      addSigned(new long[] {x * y, unsignedMultiplyHigh(x, y)}, 2, productSign);
    } else if (b.mag == null) {
      addScaled(a.mag, a.len, abs(b.small), productSign);
    } else if (a.mag == null) {
      addScaled(b.mag, b.len, abs(a.small), productSign);
    } else if (len == 0 || sign == productSign) {
      if (len == 0) {
        sign = productSign;
      }
      multiplyAccumulate(a.mag, a.len, b.mag, b.len);
    } else {
      long[] product = new long[a.len + b.len];
      multiplyInto(product, a.mag, a.len, b.mag, b.len);
      addSigned(product, limbCount(product, product.length), productSign);
    }
    normalize();
  }

  /** this *= m. */
  void multiply(long m) {
    if (huge != null) {
      if (WordCounts.ENABLED) {
        WordCounts.multiplyAdd(limbs());
      }
      setHuge(huge.multiply(BigInteger.valueOf(m)));
      return;
    }
    if (mag == null) {
      long hi = Math.multiplyHigh(small, m);
      long lo = small * m;
      if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
        small = lo;
        return;
      }
    }
    if (m == 0 || signum() == 0) {
      small = 0;
      mag = null;
      return;
    }
    if (mag == null) {
      promote();
    }
    multiplyByLimb(abs(m));
    sign *= m < 0 ? -1 : 1;
    normalize();
  }

  /** this *= m, in place (a second buffer is kept for multipliers of several limbs). */
  void multiply(ExactInt m) {
    if (huge != null || m.huge != null) {
      countProduct(this, m);
      setHuge(toBigInteger().multiply(m.toBigInteger()));
      return;
    }
    if (m.mag == null) {
      multiply(m.small);
      return;
    }
    if (signum() == 0) {
      return;
    }
    if (mag == null) {
      promote();
    }
    int need = len + m.len;
    long[] out =
        spare != null && spare.length >= need && spare != m.mag ? spare : new long[need + 4];
    Arrays.fill(out, 0, need, 0);
    multiplyInto(out, mag, len, m.mag, m.len);
    spare = mag == m.mag ? null : mag;
    mag = out;
    len = need;
    sign *= m.sign;
    normalize();
  }

  /** this = this · a + x · b, the step of a shared burst's linear map. */
  void affine(ExactInt a, ExactInt x, ExactInt b) {
    multiply(a);
    addProduct(x, b);
  }

  // --- the huge form --------------------------------------------------------------------------

  /** Sets a value computed as a {@code BigInteger}: huge if it still has the limbs for it. */
  private void setHuge(BigInteger value) {
    if (value.bitLength() <= 64 * (HUGE_LIMBS - 1)) {
      set(value);
      return;
    }
    huge = value;
    mag = null;
    spare = null;
    small = 0;
    len = 0;
  }

  /** Limbs of the magnitude (1 for the long form). */
  private int limbs() {
    if (huge != null) {
      return (huge.abs().bitLength() + 63) / 64;
    }
    return mag == null ? 1 : len;
  }

  /** Counts a product as the limb loop would do it: a row of the longer per limb of the shorter. */
  private static void countProduct(ExactInt a, ExactInt b) {
    if (WordCounts.ENABLED) {
      int al = a.limbs();
      int bl = b.limbs();
      for (int row = Math.min(al, bl); row > 0; row--) {
        WordCounts.multiplyAdd(Math.max(al, bl));
      }
    }
  }

  // --- the big form ---------------------------------------------------------------------------

  /** |v| as an unsigned 64-bit value (|Long.MIN_VALUE| = 2^63). */
  private static long abs(long v) {
    return v < 0 ? -v : v;
  }

  /** The high 64 bits of the unsigned 128-bit product (Java 17 has only the signed one). */
  private static long unsignedMultiplyHigh(long x, long y) {
    return Math.multiplyHigh(x, y) + ((x >> 63) & y) + ((y >> 63) & x);
  }

  private void promote() {
    promote(4);
  }

  /** To the big form, with room for {@code capacity} limbs (so that it does not grow at once). */
  private void promote(int capacity) {
    mag = new long[Math.max(4, capacity)];
    mag[0] = abs(small);
    len = small == 0 ? 0 : 1;
    sign = small < 0 ? -1 : 1;
    small = 0;
  }

  private static int limbCount(long[] limbs, int n) {
    while (n > 0 && limbs[n - 1] == 0) {
      n--;
    }
    return n;
  }

  private void ensure(int limbs) {
    if (mag.length < limbs) {
      mag = Arrays.copyOf(mag, Math.max(limbs, mag.length + (mag.length >> 1)));
    }
  }

  /** this += s · m for a one-limb magnitude m. */
  private void addLimb(long m, int s) {
    if (m == 0) {
      return;
    }
    if (len == 0 || sign == s) {
      if (len == 0) {
        sign = s;
      }
      ensure(len + 1);
      long carry = m;
      int i = 0;
      for (; carry != 0 && i < len; i++) {
        long t = mag[i] + carry;
        carry = Long.compareUnsigned(t, carry) < 0 ? 1 : 0;
        mag[i] = t;
      }
      if (carry != 0) {
        mag[len++] = carry;
      }
    } else if (len > 1 || Long.compareUnsigned(mag[0], m) >= 0) {
      long borrow = m;
      for (int i = 0; borrow != 0; i++) {
        long t = mag[i] - borrow;
        borrow = Long.compareUnsigned(mag[i], borrow) < 0 ? 1 : 0;
        mag[i] = t;
      }
    } else {
      mag[0] = m - mag[0];
      sign = s;
    }
  }

  private void addSigned(long[] b, int bl, int s) {
    if (bl == 0) {
      return;
    }
    if (len == 0 || sign == s) {
      if (len == 0) {
        sign = s;
      }
      addMagnitude(b, bl);
    } else if (compareMagnitude(b, bl) >= 0) {
      subtractMagnitude(b, bl);
    } else {
      reverseSubtractMagnitude(b, bl);
      sign = s;
    }
  }

  private void addMagnitude(long[] b, int bl) {
    if (WordCounts.ENABLED) {
      WordCounts.add(Math.max(len, bl));
    }
    ensure(Math.max(len, bl) + 1);
    long[] m = mag;
    long carry = 0;
    int i = 0;
    int common = Math.min(len, bl);
    for (; i < common; i++) {
      long x = m[i];
      long y = b[i];
      long t = x + y + carry;
      // The carry out of the top bit: both set, or either set and the sum's bit clear.
      carry = ((x & y) | ((x | y) & ~t)) >>> 63;
      m[i] = t;
    }
    for (; i < bl; i++) {
      long y = b[i];
      long t = y + carry;
      carry = (y & ~t) >>> 63;
      m[i] = t;
    }
    for (; carry != 0 && i < len; i++) {
      long x = m[i];
      long t = x + 1;
      carry = (x & ~t) >>> 63;
      m[i] = t;
    }
    int top = Math.max(len, bl);
    if (carry != 0) {
      m[top++] = 1;
    }
    len = top;
  }

  private int compareMagnitude(long[] b, int bl) {
    if (len != bl) {
      return len > bl ? 1 : -1;
    }
    for (int i = len - 1; i >= 0; i--) {
      if (mag[i] != b[i]) {
        return Long.compareUnsigned(mag[i], b[i]);
      }
    }
    return 0;
  }

  /** |this| −= |b|, given |this| ≥ |b|. */
  private void subtractMagnitude(long[] b, int bl) {
    if (WordCounts.ENABLED) {
      WordCounts.add(bl);
    }
    long[] m = mag;
    long borrow = 0;
    int i = 0;
    for (; i < bl; i++) {
      long x = m[i];
      long y = b[i];
      long t = x - y - borrow;
      // The borrow out of the top bit (Hacker's Delight 2-16).
      borrow = ((~x & y) | (~(x ^ y) & t)) >>> 63;
      m[i] = t;
    }
    for (; borrow != 0 && i < len; i++) {
      long x = m[i];
      m[i] = x - 1;
      borrow = x == 0 ? 1 : 0;
    }
  }

  /** |this| = |b| − |this|, given |b| > |this|. */
  private void reverseSubtractMagnitude(long[] b, int bl) {
    if (WordCounts.ENABLED) {
      WordCounts.add(bl);
    }
    ensure(bl);
    long[] m = mag;
    long borrow = 0;
    for (int i = 0; i < bl; i++) {
      long x = b[i];
      long y = i < len ? m[i] : 0;
      long t = x - y - borrow;
      borrow = ((~x & y) | (~(x ^ y) & t)) >>> 63;
      m[i] = t;
    }
    len = bl;
  }

  /** |this| *= y for a one-limb y, in place. */
  private void multiplyByLimb(long y) {
    if (WordCounts.ENABLED) {
      WordCounts.multiplyAdd(len);
    }
    ensure(len + 1);
    long[] m = mag;
    long carry = 0;
    for (int i = 0; i < len; i++) {
      long x = m[i];
      long lo = x * y;
      long hi = unsignedMultiplyHigh(x, y);
      long t = lo + carry;
      hi += Long.compareUnsigned(t, lo) < 0 ? 1 : 0;
      m[i] = t;
      carry = hi;
    }
    if (carry != 0) {
      m[len++] = carry;
    }
  }

  /** this += s · |x| · y for a one-limb y: in place when the signs agree. */
  private void addScaled(long[] x, int xl, long y, int s) {
    if (len != 0 && sign != s) {
      long[] product = new long[xl + 1];
      product[xl] = multiplyAddRow(product, 0, x, xl, y);
      addSigned(product, limbCount(product, xl + 1), s);
      return;
    }
    if (len == 0) {
      sign = s;
    }
    int top = Math.max(len, xl + 1) + 1;
    ensure(top);
    long[] m = mag;
    for (int k = len; k < top; k++) {
      m[k] = 0;
    }
    // x may be this magnitude itself (before ensure copied it): each x[i] is read before m[i] is
    // written, so the in-place update is still exact.
    addCarry(m, xl, multiplyAddRow(m, 0, x, xl, y));
    len = limbCount(m, top);
  }

  /** |this| += |a| · |b|, the shorter operand in the outer loop. */
  private void multiplyAccumulate(long[] a, int al, long[] b, int bl) {
    if (al < bl) {
      long[] t = a;
      a = b;
      b = t;
      int tl = al;
      al = bl;
      bl = tl;
    }
    if (a == mag) {
      a = Arrays.copyOf(a, al);
    }
    if (b == mag) {
      b = Arrays.copyOf(b, bl);
    }
    int top = Math.max(len, al + bl) + 1;
    ensure(top);
    long[] m = mag;
    for (int k = len; k < top; k++) {
      m[k] = 0;
    }
    for (int j = 0; j < bl; j++) {
      if (b[j] != 0) {
        addCarry(m, j + al, multiplyAddRow(m, j, a, al, b[j]));
      }
    }
    len = limbCount(m, top);
  }

  /** into[0, al + bl) = |a| · |b|, given into is zero there. */
  private static void multiplyInto(long[] into, long[] a, int al, long[] b, int bl) {
    for (int j = 0; j < bl; j++) {
      into[j + al] = multiplyAddRow(into, j, a, al, b[j]);
    }
  }

  /**
   * into[at, at + al) += |a| · y for a one-limb y; returns the carry out of the top limb. Each a[i]
   * is read before into[at + i] is written.
   */
  private static long multiplyAddRow(long[] into, int at, long[] a, int al, long y) {
    if (WordCounts.ENABLED) {
      WordCounts.multiplyAdd(al);
    }
    long carry = 0;
    for (int i = 0; i < al; i++) {
      long ai = a[i];
      long lo = ai * y;
      long hi = unsignedMultiplyHigh(ai, y);
      long t = lo + into[at + i];
      hi += Long.compareUnsigned(t, lo) < 0 ? 1 : 0;
      long u = t + carry;
      hi += Long.compareUnsigned(u, t) < 0 ? 1 : 0;
      into[at + i] = u;
      carry = hi;
    }
    return carry;
  }

  /** Adds a carry into m from limb {@code at} upwards (m has room for it). */
  private static void addCarry(long[] m, int at, long carry) {
    for (int k = at; carry != 0; k++) {
      long t = m[k] + carry;
      carry = Long.compareUnsigned(t, carry) < 0 ? 1 : 0;
      m[k] = t;
    }
  }

  /** Drops leading zero limbs; back to the long form when the value fits. */
  private void normalize() {
    if (mag == null) {
      return;
    }
    len = limbCount(mag, len);
    if (len >= HUGE_LIMBS) {
      BigInteger value = toBigInteger();
      mag = null;
      setHuge(value);
      return;
    }
    if (len == 0) {
      small = 0;
      mag = null;
    } else if (len == 1) {
      long m = mag[0];
      if (m >= 0) {
        small = sign < 0 ? -m : m;
        mag = null;
      } else if (sign < 0 && m == Long.MIN_VALUE) {
        small = Long.MIN_VALUE;
        mag = null;
      }
    }
  }

  /**
   * The decimal digits, without going through {@link BigInteger}: a window's result is formatted
   * once per query, and at thousands of bits {@code BigInteger#toString}'s divisions (each
   * normalizing and allocating a copy) cost more than evaluating the window. Here a copy of the
   * magnitude is divided in place by 10^19 per pass, one 128-by-64-bit division per limb with a
   * precomputed reciprocal (Möller and Granlund, "Improved division by invariant integers", 2011;
   * 10^19 has its top bit set, as the method needs): quadratic in the limbs, about 600 such steps
   * at 2,000 bits. From {@link #SUBQUADRATIC_LIMBS} limbs on (a window of about 50,000 events of a
   * Kleene type) {@code BigInteger}'s recursive conversion, whose divisions are subquadratic, is
   * faster: 0.07 s at 830,000 bits against 0.9 s.
   */
  @Override
  public String toString() {
    if (mag == null && huge == null) {
      return Long.toString(small);
    }
    if (bitLength() > 64 * (SUBQUADRATIC_LIMBS - 1)) {
      return toBigInteger().toString();
    }
    return huge != null
        ? decimal(magnitudeOf(huge), huge.signum())
        : decimal(Arrays.copyOf(mag, len), sign);
  }

  /** The digits of a magnitude (consumed) with a sign, by {@link #toString}'s method. */
  private static String decimal(long[] rest, int sign) {
    int len = limbCount(rest, rest.length);
    int top = len - 1;
    // Each chunk is 19 decimal digits, least significant first.
    long[] chunks = new long[len * 64 / 63 + 2];
    int count = 0;
    while (top >= 0) {
      long rem = 0;
      for (int k = top; k >= 0; k--) {
        long u0 = rest[k];
        // The quotient and remainder of (rem, u0) by CHUNK, rem < CHUNK.
        long q0 = RECIPROCAL * rem;
        long q1 = unsignedMultiplyHigh(RECIPROCAL, rem);
        long sum = q0 + u0;
        q1 += rem + (Long.compareUnsigned(sum, q0) < 0 ? 1 : 0) + 1;
        q0 = sum;
        long r = u0 - q1 * CHUNK;
        if (Long.compareUnsigned(r, q0) > 0) {
          q1--;
          r += CHUNK;
        }
        if (Long.compareUnsigned(r, CHUNK) >= 0) {
          q1++;
          r -= CHUNK;
        }
        rest[k] = q1;
        rem = r;
      }
      chunks[count++] = rem;
      while (top >= 0 && rest[top] == 0) {
        top--;
      }
    }
    String head = Long.toUnsignedString(chunks[count - 1]);
    int at = sign < 0 ? 1 : 0;
    byte[] text = new byte[at + head.length() + CHUNK_DIGITS * (count - 1)];
    if (sign < 0) {
      text[0] = '-';
    }
    for (int i = 0; i < head.length(); i++) {
      text[at++] = (byte) head.charAt(i);
    }
    for (int c = count - 2; c >= 0; c--) {
      // A chunk below 10^19 may not fit a signed long: its last digit first, unsigned.
      long chunk = chunks[c];
      long tenth = Long.divideUnsigned(chunk, 10);
      text[at + CHUNK_DIGITS - 1] = (byte) ('0' + (chunk - 10 * tenth));
      for (int d = at + CHUNK_DIGITS - 2; d >= at; d--) {
        text[d] = (byte) ('0' + tenth % 10);
        tenth /= 10;
      }
      at += CHUNK_DIGITS;
    }
    return new String(text, StandardCharsets.ISO_8859_1);
  }

  /**
   * Limbs from which {@link #toString} converts through {@code BigInteger} (measured crossover).
   */
  static final int SUBQUADRATIC_LIMBS = 800;

  /** 10^19, unsigned: the largest power of ten below 2^64. */
  private static final long CHUNK = Long.parseUnsignedLong("10000000000000000000");

  private static final int CHUNK_DIGITS = 19;

  /** floor((2^128 − 1) / CHUNK) − 2^64: the reciprocal a division by CHUNK multiplies by. */
  private static final long RECIPROCAL =
      BigInteger.ONE
          .shiftLeft(128)
          .subtract(BigInteger.ONE)
          .divide(new BigInteger(Long.toUnsignedString(CHUNK)))
          .subtract(BigInteger.ONE.shiftLeft(64))
          .longValue();
}
