package dev.eventide.trends.beam;

import dev.eventide.trends.Event;
import dev.eventide.trends.internal.engine.UnscaledLong;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;

/**
 * The Beam coder of {@link Event}: type, time, then the attributes sorted by name, each a number
 * (exact {@link BigDecimal}) or a string. Deterministic: equal events encode to equal bytes.
 *
 * <pre>{@code
 * PCollection<Event> events =
 *     p.apply(Create.of(Event.of("Request", 1_000, "driver", 7)).withCoder(EventCoder.of()));
 * // Beam also finds it by itself for a PCollection<Event>
 * }</pre>
 */
public final class EventCoder extends AtomicCoder<Event> {
  private static final EventCoder INSTANCE = new EventCoder();
  private static final long serialVersionUID = 1L;

  // Value tags: a number whose unscaled value fits a long (the usual case), another number, a
  // string. Beam's BigDecimalCoder is not used: it formats a message string on every call.
  private static final int SMALL_NUMBER = 0;
  private static final int STRING = 1;
  private static final int BIG_NUMBER = 2;

  private EventCoder() {}

  public static EventCoder of() {
    return INSTANCE;
  }

  @Override
  public void encode(Event event, OutputStream out) throws IOException {
    ByteWriter w = new ByteWriter(64);
    w.utf8(event.type());
    w.varLong(event.time());
    Map<String, Object> attributes = event.attributes();
    encodeValues(inNameOrder(attributes) ? attributes : new TreeMap<>(attributes), w);
    w.writeTo(out);
  }

  /**
   * The time of an encoded event, read in place: its type's length and bytes, then the time.
   *
   * @throws IllegalArgumentException if the bytes end before the time
   */
  static long timeOf(byte[] encoded) {
    ByteReader in = new ByteReader(encoded, "an encoded event");
    try {
      in.skip(in.length("type"));
      return in.varLong();
    } catch (CoderException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  /** Decoded events have their attributes in name order already: no need to sort them again. */
  static boolean inNameOrder(Map<String, Object> attributes) {
    String previous = null;
    for (String name : attributes.keySet()) {
      if (previous != null && previous.compareTo(name) >= 0) {
        return false;
      }
      previous = name;
    }
    return true;
  }

  @Override
  public Event decode(InputStream in) throws IOException {
    String type = StringUtf8Coder.of().decode(in);
    long time = VarLongCoder.of().decode(in);
    return Event.of(type, time, decodeValues(in));
  }

  /** Encodes names with values that are {@link BigDecimal}s or strings, in the map's order. */
  static void encodeValues(Map<String, Object> values, OutputStream out) throws IOException {
    ByteWriter w = new ByteWriter(64);
    encodeValues(values, w);
    w.writeTo(out);
  }

  private static void encodeValues(Map<String, Object> values, ByteWriter w) throws CoderException {
    w.varInt(values.size());
    for (Map.Entry<String, Object> a : values.entrySet()) {
      w.utf8(a.getKey());
      if (a.getValue() instanceof BigDecimal number) {
        long small = UnscaledLong.of(number);
        BigInteger unscaled = small == UnscaledLong.NOT_SMALL ? number.unscaledValue() : null;
        if (unscaled == null || unscaled.bitLength() < 64) {
          w.varInt(SMALL_NUMBER);
          w.varInt(number.scale());
          w.varLong(zigzag(unscaled == null ? small : unscaled.longValue()));
        } else {
          byte[] bytes = unscaled.toByteArray();
          w.varInt(BIG_NUMBER);
          w.varInt(number.scale());
          w.varInt(bytes.length);
          w.bytes(bytes);
        }
      } else if (a.getValue() instanceof String string) {
        w.varInt(STRING);
        w.utf8(string);
      } else {
        throw new CoderException(
            "value of '" + a.getKey() + "' is neither a number nor a string: " + a.getValue());
      }
    }
  }

  static Map<String, Object> decodeValues(InputStream in) throws IOException {
    int size = VarIntCoder.of().decode(in);
    if (size < 0) {
      throw new CoderException("negative attribute count " + size);
    }
    Map<String, Object> values = new LinkedHashMap<>();
    for (int i = 0; i < size; i++) {
      String name = StringUtf8Coder.of().decode(in);
      int tag = VarIntCoder.of().decode(in);
      switch (tag) {
        case SMALL_NUMBER -> {
          int scale = VarIntCoder.of().decode(in);
          values.put(name, BigDecimal.valueOf(unzigzag(VarLongCoder.of().decode(in)), scale));
        }
        case BIG_NUMBER -> {
          int scale = VarIntCoder.of().decode(in);
          values.put(name, new BigDecimal(new BigInteger(ByteArrayCoder.of().decode(in)), scale));
        }
        case STRING -> values.put(name, StringUtf8Coder.of().decode(in));
        default -> throw new CoderException("unknown value tag " + tag + " of '" + name + "'");
      }
    }
    return values;
  }

  static long zigzag(long v) {
    return (v << 1) ^ (v >> 63);
  }

  static long unzigzag(long v) {
    return (v >>> 1) ^ -(v & 1);
  }

  @Override
  public void verifyDeterministic() {}

  @Override
  public boolean consistentWithEquals() {
    return true;
  }
}
