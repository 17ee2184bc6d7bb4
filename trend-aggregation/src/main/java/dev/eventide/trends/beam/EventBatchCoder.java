package dev.eventide.trends.beam;

import dev.eventide.trends.Event;
import dev.eventide.trends.internal.engine.UnscaledLong;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.util.VarInt;

/**
 * The coder of a batch of routed events ({@link EventBatches}) on its way to the keys: one
 * length-prefixed block in which every string (type, attribute name, string value) is written once
 * and then referred to by its index, so the names that every event repeats cost a byte, and the
 * decoded events of a batch share their strings (and the strings' cached hashes). Values as in
 * {@link EventCoder}, attributes in name order. Only ever on the wire between two steps, never in
 * state: its format may change between builds.
 */
final class EventBatchCoder extends AtomicCoder<List<Event>> {
  private static final EventBatchCoder INSTANCE = new EventBatchCoder();
  private static final long serialVersionUID = 1L;

  private static final int SMALL_NUMBER = 0;
  private static final int STRING = 1;
  private static final int BIG_NUMBER = 2;

  private EventBatchCoder() {}

  static EventBatchCoder of() {
    return INSTANCE;
  }

  @Override
  public void encode(List<Event> events, OutputStream out) throws IOException {
    Writer w = new Writer();
    w.varLong(events.size());
    for (Event e : events) {
      w.string(e.type());
      w.varLong(EventCoder.zigzag(e.time()));
      Map<String, Object> attributes = e.attributes();
      if (!EventCoder.inNameOrder(attributes)) {
        attributes = new TreeMap<>(attributes);
      }
      w.varLong(attributes.size());
      for (Map.Entry<String, Object> a : attributes.entrySet()) {
        w.string(a.getKey());
        if (a.getValue() instanceof BigDecimal number) {
          long small = UnscaledLong.of(number);
          BigInteger unscaled = small == UnscaledLong.NOT_SMALL ? number.unscaledValue() : null;
          if (unscaled == null || unscaled.bitLength() < 64) {
            w.varLong(SMALL_NUMBER);
            w.varLong(EventCoder.zigzag(number.scale()));
            w.varLong(EventCoder.zigzag(unscaled == null ? small : unscaled.longValue()));
          } else {
            byte[] bytes = unscaled.toByteArray();
            w.varLong(BIG_NUMBER);
            w.varLong(EventCoder.zigzag(number.scale()));
            w.varLong(bytes.length);
            w.buffer.bytes(bytes);
          }
        } else if (a.getValue() instanceof String string) {
          w.varLong(STRING);
          w.string(string);
        } else {
          throw new CoderException(
              "value of '" + a.getKey() + "' is neither a number nor a string: " + a.getValue());
        }
      }
    }
    VarInt.encode(w.buffer.size(), out);
    w.buffer.writeTo(out);
  }

  @Override
  public List<Event> decode(InputStream in) throws IOException {
    int size = VarInt.decodeInt(in);
    if (size < 0) {
      throw new CoderException("event batch of negative length " + size);
    }
    byte[] block = new byte[size];
    int read = in.readNBytes(block, 0, size);
    if (read != size) {
      throw new CoderException("event batch of " + size + " bytes ends after " + read);
    }
    Reader r = new Reader(block);
    int count = r.in.length("events");
    List<Event> events = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      String type = r.string();
      long time = EventCoder.unzigzag(r.in.varLong());
      int attributes = r.in.length("attributes");
      Map<String, Object> values = new LinkedHashMap<>(attributes * 2);
      for (int a = 0; a < attributes; a++) {
        String name = r.string();
        long tag = r.in.varLong();
        switch (tag > BIG_NUMBER || tag < 0 ? -1 : (int) tag) {
          case SMALL_NUMBER -> {
            int scale = (int) EventCoder.unzigzag(r.in.varLong());
            values.put(name, BigDecimal.valueOf(EventCoder.unzigzag(r.in.varLong()), scale));
          }
          case BIG_NUMBER -> {
            int scale = (int) EventCoder.unzigzag(r.in.varLong());
            int length = r.in.length("number");
            if (length == 0) {
              throw new CoderException("event batch: a number of no bytes in '" + name + "'");
            }
            values.put(name, new BigDecimal(new BigInteger(r.in.bytes(length)), scale));
          }
          case STRING -> values.put(name, r.string());
          default -> throw new CoderException("unknown value tag " + tag + " of '" + name + "'");
        }
      }
      events.add(Event.of(type, time, values));
    }
    if (r.in.remaining() != 0) {
      throw new CoderException(
          "event batch of " + block.length + " bytes has " + r.in.remaining() + " left");
    }
    return events;
  }

  @Override
  public void verifyDeterministic() {}

  /** A string is its index if written before in the batch, else the next index and the string. */
  private static final class Writer {
    private final ByteWriter buffer = new ByteWriter(256);
    private final Map<String, Integer> strings = new HashMap<>();

    void string(String s) {
      Integer index = strings.get(s);
      if (index != null) {
        buffer.varLong(index);
        return;
      }
      buffer.varLong(strings.size());
      strings.put(s, strings.size());
      buffer.utf8(s);
    }

    void varLong(long v) {
      buffer.varLong(v);
    }
  }

  /** A {@link ByteReader} with the strings read so far. */
  private static final class Reader {
    private final ByteReader in;
    private final List<String> strings = new ArrayList<>();

    Reader(byte[] block) {
      this.in = new ByteReader(block, "event batch");
    }

    String string() throws CoderException {
      long index = in.varLong();
      if (index >= 0 && index < strings.size()) {
        return strings.get((int) index);
      }
      if (index != strings.size()) {
        throw new CoderException(
            "event batch refers to string " + index + " of " + strings.size() + " written");
      }
      String s = in.utf8(in.length("string"));
      strings.add(s);
      return s;
    }
  }
}
