package dev.eventide.trends.internal.engine;

import dev.eventide.trends.Event;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The primitives of {@link TrendStateCodec}'s binary format: zig-zag varints, exact integers in
 * their long or big form, sums by the components their shape has, attribute values and events.
 */
final class Wire {
  private static final int SMALL = 0;
  private static final int BIG = 1;
  private static final int NUMBER = 2;
  private static final int STRING = 3;
  private static final int NULL = 4;

  private Wire() {}

  static void writeVarLong(DataOutput out, long v) throws IOException {
    long z = (v << 1) ^ (v >> 63);
    while ((z & ~0x7FL) != 0) {
      out.writeByte((int) ((z & 0x7F) | 0x80));
      z >>>= 7;
    }
    out.writeByte((int) z);
  }

  static long readVarLong(DataInput in) throws IOException {
    long z = 0;
    for (int shift = 0; ; shift += 7) {
      if (shift > 63) {
        throw new IOException("malformed varint");
      }
      int b = in.readUnsignedByte();
      z |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return (z >>> 1) ^ -(z & 1);
      }
    }
  }

  static int readCount(DataInput in, String what) throws IOException {
    long n = readVarLong(in);
    if (n < 0 || n > Integer.MAX_VALUE) {
      throw new IOException("bad " + what + " count " + n);
    }
    return (int) n;
  }

  static void writeExactInt(DataOutput out, ExactInt v) throws IOException {
    if (v.isSmall()) {
      out.writeByte(SMALL);
      writeVarLong(out, v.small());
    } else {
      out.writeByte(BIG);
      writeBigInteger(out, v.toBigInteger());
    }
  }

  static ExactInt readExactInt(DataInput in) throws IOException {
    int tag = in.readUnsignedByte();
    return switch (tag) {
      case SMALL -> new ExactInt(readVarLong(in));
      case BIG -> new ExactInt(readBigInteger(in));
      default -> throw new IOException("bad number tag " + tag);
    };
  }

  private static void writeBigInteger(DataOutput out, BigInteger v) throws IOException {
    byte[] bytes = v.toByteArray();
    writeVarLong(out, bytes.length);
    out.write(bytes);
  }

  private static BigInteger readBigInteger(DataInput in) throws IOException {
    byte[] bytes = new byte[readCount(in, "byte")];
    in.readFully(bytes);
    return new BigInteger(bytes);
  }

  /** The components the shape has, in a fixed order; the reader knows the shape from the plan. */
  static void writeSums(DataOutput out, TrendSums s) throws IOException {
    writeExactInt(out, s.count);
    if (s.events != null) {
      writeExactInt(out, s.events);
    }
    if (s.sum != null) {
      writeVarLong(out, s.sum.scale());
      writeExactInt(out, s.sum.unscaled());
    }
    if (s.shape().minMax()) {
      writeValue(out, s.min);
      writeValue(out, s.max);
    }
  }

  static TrendSums readSums(DataInput in, TrendSums.Shape shape) throws IOException {
    TrendSums s = TrendSums.empty(shape);
    s.count.set(readExactInt(in));
    if (shape.events()) {
      s.events.set(readExactInt(in));
    }
    if (shape.sum()) {
      long scale = readVarLong(in);
      if (scale < 0 || scale > Integer.MAX_VALUE) {
        throw new IOException("bad scale " + scale);
      }
      s.sum.set(ExactDecimal.of(readExactInt(in).toBigInteger(), (int) scale));
    }
    if (shape.minMax()) {
      s.min = (BigDecimal) readValue(in);
      s.max = (BigDecimal) readValue(in);
    }
    return s;
  }

  /** An attribute value: a number, a string or null. */
  static void writeValue(DataOutput out, Object v) throws IOException {
    if (v == null) {
      out.writeByte(NULL);
    } else if (v instanceof BigDecimal d) {
      out.writeByte(NUMBER);
      writeVarLong(out, d.scale());
      writeBigInteger(out, d.unscaledValue());
    } else if (v instanceof String s) {
      out.writeByte(STRING);
      writeString(out, s);
    } else {
      throw new IllegalArgumentException("not an attribute value: " + v);
    }
  }

  static Object readValue(DataInput in) throws IOException {
    int tag = in.readUnsignedByte();
    return switch (tag) {
      case NULL -> null;
      case NUMBER -> {
        long scale = readVarLong(in);
        if (scale < Integer.MIN_VALUE || scale > Integer.MAX_VALUE) {
          throw new IOException("bad scale " + scale);
        }
        yield new BigDecimal(readBigInteger(in), (int) scale);
      }
      case STRING -> readString(in);
      default -> throw new IOException("bad value tag " + tag);
    };
  }

  static void writeString(DataOutput out, String s) throws IOException {
    byte[] bytes = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    writeVarLong(out, bytes.length);
    out.write(bytes);
  }

  static String readString(DataInput in) throws IOException {
    byte[] bytes = new byte[readCount(in, "byte")];
    in.readFully(bytes);
    return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
  }

  static void writeEvent(DataOutput out, Event e) throws IOException {
    writeString(out, e.type());
    writeVarLong(out, e.time());
    writeVarLong(out, e.attributes().size());
    for (var a : e.attributes().entrySet()) {
      writeString(out, a.getKey());
      writeValue(out, a.getValue());
    }
  }

  static Event readEvent(DataInput in) throws IOException {
    String type = readString(in);
    long time = readVarLong(in);
    int n = readCount(in, "attribute");
    Map<String, Object> attributes = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      String name = readString(in);
      Object value = readValue(in);
      if (value == null) {
        throw new IOException("attribute " + name + " without a value");
      }
      attributes.put(name, value);
    }
    return Event.of(type, time, attributes);
  }
}
