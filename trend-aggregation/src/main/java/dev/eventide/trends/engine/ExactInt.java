package dev.eventide.trends.engine;

import java.math.BigInteger;
import java.util.Arrays;

/**
 * A mutable exact integer: a {@code long} while the value fits, promoted to an arbitrary-precision
 * magnitude the first time an operation would overflow (checked on every operation, never wrapped).
 * Trend counts grow exponentially with trend length, so both forms are common: short trends stay on
 * the fast path, long Kleene bursts move to the exact one. The big form is updated in place (32-bit
 * limbs, little-endian), so that adding to or scaling a running sum of thousands of bits neither
 * allocates nor copies it: that is where the executor spends its time on long bursts.
 */
final class ExactInt {
  private static final long MASK = 0xFFFFFFFFL;

  /** The value while {@link #mag} is null. */
  private long small;

  /** The magnitude once promoted, limbs [0, len), mag[len − 1] != 0; null on the long path. */
  private int[] mag;

  private int len;

  /** +1 or −1 in the big form. */
  private int sign;

  /** A buffer for products that cannot be formed in place, reused (may be null). */
  private int[] spare;

  ExactInt() {}

  ExactInt(long value) {
    this.small = value;
  }

  ExactInt(BigInteger value) {
    set(value);
  }

  ExactInt copy() {
    ExactInt c = new ExactInt(small);
    if (mag != null) {
      c.mag = Arrays.copyOf(mag, len);
      c.len = len;
      c.sign = sign;
    }
    return c;
  }

  /** Whether the value fits a long (then {@link #small()} is it). */
  boolean isSmall() {
    return mag == null;
  }

  long small() {
    return small;
  }

  int signum() {
    return mag == null ? Long.signum(small) : sign;
  }

  /** Bits of the magnitude: a measure of what the next operation costs. */
  int bitLength() {
    if (mag == null) {
      return 64 - Long.numberOfLeadingZeros(small == Long.MIN_VALUE ? small : Math.abs(small));
    }
    return 32 * (len - 1) + 32 - Integer.numberOfLeadingZeros(mag[len - 1]);
  }

  BigInteger toBigInteger() {
    if (mag == null) {
      return BigInteger.valueOf(small);
    }
    byte[] bytes = new byte[4 * len];
    for (int i = 0; i < len; i++) {
      int limb = mag[i];
      int at = bytes.length - 4 * (i + 1);
      bytes[at] = (byte) (limb >>> 24);
      bytes[at + 1] = (byte) (limb >>> 16);
      bytes[at + 2] = (byte) (limb >>> 8);
      bytes[at + 3] = (byte) limb;
    }
    return new BigInteger(sign, bytes);
  }

  void set(ExactInt other) {
    small = other.small;
    if (other.mag == null) {
      mag = null;
    } else {
      mag = Arrays.copyOf(other.mag, other.len);
      len = other.len;
      sign = other.sign;
    }
  }

  /** Sets the value, in the long form when it fits (so that encodings are canonical). */
  void set(BigInteger value) {
    if (value.bitLength() < 64) {
      small = value.longValue();
      mag = null;
      return;
    }
    byte[] bytes = value.abs().toByteArray();
    int limbs = (bytes.length + 3) / 4;
    mag = new int[limbs];
    for (int b = 0; b < bytes.length; b++) {
      int fromEnd = bytes.length - 1 - b;
      mag[fromEnd / 4] |= (bytes[b] & 0xFF) << (8 * (fromEnd % 4));
    }
    len = limbs;
    sign = value.signum();
    normalize();
  }

  void add(long v) {
    if (mag == null) {
      long r = small + v;
      if (((small ^ r) & (v ^ r)) >= 0) {
        small = r;
        return;
      }
      promote();
    }
    addSigned(limbsOf(v), v < 0 ? -1 : 1);
  }

  void add(ExactInt o) {
    if (o.mag == null) {
      add(o.small);
      return;
    }
    if (mag == null) {
      promote();
    }
    addSigned(o.mag, o.len, o.sign);
  }

  /** this += a · b. */
  void addProduct(ExactInt a, ExactInt b) {
    if (a.mag == null && b.mag == null) {
      long hi = Math.multiplyHigh(a.small, b.small);
      long lo = a.small * b.small;
      if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
        add(lo);
        return;
      }
    }
    int as = a.signum();
    int bs = b.signum();
    if (as == 0 || bs == 0) {
      return;
    }
    int[] am = a.magnitude();
    int al = a.mag == null ? limbCount(am) : a.len;
    int[] bm = b.magnitude();
    int bl = b.mag == null ? limbCount(bm) : b.len;
    if (mag == null) {
      promote();
    }
    if (sign == as * bs || len == 0) {
      if (len == 0) {
        sign = as * bs;
      }
      multiplyAccumulate(am, al, bm, bl);
    } else {
      int[] product = new int[al + bl];
      multiplyInto(product, am, al, bm, bl);
      addSigned(product, limbCount(product), as * bs);
    }
    normalize();
  }

  /** this *= m. */
  void multiply(long m) {
    multiply(new ExactInt(m));
  }

  /** this *= m, in place (a second buffer is kept for multipliers of several limbs). */
  void multiply(ExactInt m) {
    if (m.mag == null && mag == null) {
      long hi = Math.multiplyHigh(small, m.small);
      long lo = small * m.small;
      if ((hi == 0 && lo >= 0) || (hi == -1 && lo < 0)) {
        small = lo;
        return;
      }
    }
    int ms = m.signum();
    if (ms == 0 || signum() == 0) {
      small = 0;
      mag = null;
      return;
    }
    if (mag == null) {
      promote();
    }
    int[] mm = m.magnitude();
    int ml = m.mag == null ? limbCount(mm) : m.len;
    if (ml == 1) {
      long f = mm[0] & MASK;
      ensure(len + 1);
      long carry = 0;
      for (int i = 0; i < len; i++) {
        long t = (mag[i] & MASK) * f + carry;
        mag[i] = (int) t;
        carry = t >>> 32;
      }
      mag[len] = (int) carry;
      len++;
    } else {
      int need = len + ml;
      int[] out = spare != null && spare.length >= need && spare != mm ? spare : new int[need + 4];
      Arrays.fill(out, 0, need, 0);
      multiplyInto(out, mag, len, mm, ml);
      spare = mag;
      mag = out;
      len = need;
    }
    sign *= ms;
    normalize();
  }

  /** this = this · a + x · b, the step of a shared burst's linear map. */
  void affine(ExactInt a, ExactInt x, ExactInt b) {
    multiply(a);
    addProduct(x, b);
  }

  // --- the big form ---------------------------------------------------------------------------

  private void promote() {
    int[] limbs = limbsOf(small);
    mag = Arrays.copyOf(limbs, Math.max(4, limbs.length));
    len = limbCount(limbs);
    sign = small < 0 ? -1 : 1;
    small = 0;
  }

  /** The magnitude's limbs (a fresh array for the long form). */
  private int[] magnitude() {
    return mag != null ? mag : limbsOf(small);
  }

  /** |v| as two limbs (|Long.MIN_VALUE| = 2^63 fits as unsigned). */
  private static int[] limbsOf(long v) {
    long m = v < 0 ? -v : v;
    return new int[] {(int) m, (int) (m >>> 32)};
  }

  private void addSigned(int[] b, int s) {
    addSigned(b, limbCount(b), s);
  }

  private static int limbCount(int[] limbs) {
    int n = limbs.length;
    while (n > 0 && limbs[n - 1] == 0) {
      n--;
    }
    return n;
  }

  private void addSigned(int[] b, int bl, int s) {
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
    normalize();
  }

  private void ensure(int limbs) {
    if (mag.length < limbs) {
      mag = Arrays.copyOf(mag, Math.max(limbs, mag.length + (mag.length >> 1)));
    }
  }

  private void addMagnitude(int[] b, int bl) {
    ensure(Math.max(len, bl) + 1);
    long carry = 0;
    int i = 0;
    for (; i < bl; i++) {
      long t = (mag[i] & MASK) + (b[i] & MASK) + carry;
      mag[i] = (int) t;
      carry = t >>> 32;
    }
    for (; carry != 0 && i < len; i++) {
      long t = (mag[i] & MASK) + carry;
      mag[i] = (int) t;
      carry = t >>> 32;
    }
    int top = Math.max(len, bl);
    if (carry != 0) {
      mag[top++] = (int) carry;
    }
    len = Math.max(top, len);
  }

  private int compareMagnitude(int[] b, int bl) {
    if (len != bl) {
      return len > bl ? 1 : -1;
    }
    for (int i = len - 1; i >= 0; i--) {
      if (mag[i] != b[i]) {
        return Integer.compareUnsigned(mag[i], b[i]);
      }
    }
    return 0;
  }

  /** |this| −= |b|, given |this| ≥ |b|. */
  private void subtractMagnitude(int[] b, int bl) {
    long borrow = 0;
    int i = 0;
    for (; i < bl; i++) {
      long t = (mag[i] & MASK) - (b[i] & MASK) - borrow;
      mag[i] = (int) t;
      borrow = t < 0 ? 1 : 0;
    }
    for (; borrow != 0 && i < len; i++) {
      long t = (mag[i] & MASK) - borrow;
      mag[i] = (int) t;
      borrow = t < 0 ? 1 : 0;
    }
  }

  /** |this| = |b| − |this|, given |b| > |this|. */
  private void reverseSubtractMagnitude(int[] b, int bl) {
    ensure(bl);
    long borrow = 0;
    for (int i = 0; i < bl; i++) {
      long mine = i < len ? mag[i] & MASK : 0;
      long t = (b[i] & MASK) - mine - borrow;
      mag[i] = (int) t;
      borrow = t < 0 ? 1 : 0;
    }
    len = bl;
  }

  /** |this| += |a| · |b|. */
  private void multiplyAccumulate(int[] a, int al, int[] b, int bl) {
    if (a == mag) {
      a = Arrays.copyOf(a, al);
    }
    if (b == mag) {
      b = Arrays.copyOf(b, bl);
    }
    ensure(Math.max(len, al + bl) + 1);
    int top = Math.max(len, al + bl) + 1;
    for (int k = len; k < top; k++) {
      mag[k] = 0;
    }
    for (int j = 0; j < bl; j++) {
      long bj = b[j] & MASK;
      if (bj == 0) {
        continue;
      }
      long carry = 0;
      for (int i = 0; i < al; i++) {
        long t = (a[i] & MASK) * bj + (mag[i + j] & MASK) + carry;
        mag[i + j] = (int) t;
        carry = t >>> 32;
      }
      for (int k = j + al; carry != 0; k++) {
        long t = (mag[k] & MASK) + carry;
        mag[k] = (int) t;
        carry = t >>> 32;
      }
    }
    len = top;
  }

  private static void multiplyInto(int[] into, int[] a, int al, int[] b, int bl) {
    for (int j = 0; j < bl; j++) {
      long bj = b[j] & MASK;
      long carry = 0;
      for (int i = 0; i < al; i++) {
        long t = (a[i] & MASK) * bj + (into[i + j] & MASK) + carry;
        into[i + j] = (int) t;
        carry = t >>> 32;
      }
      into[j + al] = (int) carry;
    }
  }

  /** Drops leading zero limbs; back to the long form when the value fits. */
  private void normalize() {
    if (mag == null) {
      return;
    }
    while (len > 0 && mag[len - 1] == 0) {
      len--;
    }
    if (len <= 2) {
      long m = len == 0 ? 0 : (mag[0] & MASK) | (len == 2 ? (long) mag[1] << 32 : 0);
      if (m >= 0) {
        small = sign < 0 ? -m : m;
        mag = null;
      } else if (sign < 0 && m == Long.MIN_VALUE) {
        small = Long.MIN_VALUE;
        mag = null;
      }
    }
  }

  @Override
  public String toString() {
    return toBigInteger().toString();
  }
}
