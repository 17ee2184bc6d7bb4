package dev.eventide.trends.internal.engine;

import dev.eventide.trends.Event;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInput;
import java.io.DataInputStream;
import java.io.DataOutput;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The binary encoding of a {@link TrendState}, for a Beam {@code Coder} or a checkpoint: compact
 * (varints, numbers in their long form while they fit, only the components each query needs) and
 * versioned. Decoding a state and continuing gives exactly the results of an uninterrupted run.
 *
 * <p>Layout, version 1: the version byte; the plan's fingerprint (8 bytes: a state only decodes
 * with the plan of the same workload and sharing mode); unit, partition values, last time, closed
 * time; the buffered burst's events; then per open window its bounds and, per member query, the
 * window's negated types, the pending time, types and prefixes, and every bucket (state set,
 * negated types, sums, and the entries of its index, if any). Version 2, for a state some of whose
 * queries were removed from the workload ({@link TrendPlan#retire}): after the closed time, the
 * number of removed members and their indices; removed members have no window data.
 */
public final class TrendStateCodec {
  static final int VERSION = 1;

  /** Version 1 with, after the closed time, the members removed from the workload. */
  static final int RETIRING_VERSION = 2;

  private final TrendPlan plan;
  private final long fingerprint;

  private TrendStateCodec(TrendPlan plan) {
    this.plan = plan;
    this.fingerprint = fingerprint(plan);
  }

  /** Returns the codec of states advanced by the plan. */
  public static TrendStateCodec of(TrendPlan plan) {
    return new TrendStateCodec(plan);
  }

  public byte[] encode(TrendState state) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      encode(state, bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  /**
   * Decodes a state.
   *
   * @throws IllegalArgumentException if the bytes are not a state of this plan (another version,
   *     another workload, truncated or damaged)
   */
  public TrendState decode(byte[] bytes) {
    try {
      return decode(new ByteArrayInputStream(bytes));
    } catch (IOException e) {
      throw new IllegalArgumentException("not an encoded trend state: " + e.getMessage(), e);
    }
  }

  public void encode(TrendState state, OutputStream stream) throws IOException {
    DataOutputStream out = new DataOutputStream(stream);
    out.writeByte(state.retired == null ? VERSION : RETIRING_VERSION);
    out.writeLong(fingerprint);
    Wire.writeVarLong(out, state.unit);
    Wire.writeVarLong(out, state.partition.size());
    for (Object v : state.partition) {
      Wire.writeValue(out, v);
    }
    Wire.writeVarLong(out, state.lastTime);
    Wire.writeVarLong(out, state.closedUpTo);
    if (state.retired != null) {
      Wire.writeVarLong(out, state.retired.cardinality());
      for (int m = state.retired.nextSetBit(0); m >= 0; m = state.retired.nextSetBit(m + 1)) {
        Wire.writeVarLong(out, m);
      }
    }
    Wire.writeVarLong(out, state.burst.size());
    for (Event e : state.burst) {
      Wire.writeEvent(out, e);
    }
    TrendPlan.Unit u = plan.unit(state.unit);
    Wire.writeVarLong(out, state.windows.size());
    for (TrendState.WindowState w : state.windows) {
      Wire.writeVarLong(out, w.start);
      Wire.writeVarLong(out, w.end);
      for (int m = 0; m < w.members.length; m++) {
        if (!state.isRetired(m)) {
          writeQueryWindow(out, u.members.get(m), w.members[m]);
        }
      }
    }
    out.flush();
  }

  /**
   * Decodes a state from a stream.
   *
   * @throws IOException if the stream ends early or holds something else than a state of this plan
   */
  public TrendState decode(InputStream stream) throws IOException {
    DataInputStream in = new DataInputStream(stream);
    try {
      int version = in.readUnsignedByte();
      if (version != VERSION && version != RETIRING_VERSION) {
        throw new IOException(
            "unknown trend state version "
                + version
                + " (expected "
                + VERSION
                + " or "
                + RETIRING_VERSION
                + ")");
      }
      if (in.readLong() != fingerprint) {
        throw new IOException("the state was encoded for another workload or sharing mode");
      }
      long unit = Wire.readVarLong(in);
      if (unit < 0 || unit >= plan.unitCount()) {
        throw new IOException("no sharing unit " + unit + " in a plan of " + plan.unitCount());
      }
      int parts = Wire.readCount(in, "partition value");
      List<Object> partition = new ArrayList<>(parts);
      for (int i = 0; i < parts; i++) {
        partition.add(Wire.readValue(in));
      }
      TrendState state = plan.newState((int) unit, partition);
      state.lastTime = Wire.readVarLong(in);
      state.closedUpTo = Wire.readVarLong(in);
      TrendPlan.Unit u = plan.unit(state.unit);
      if (version == RETIRING_VERSION) {
        state.retired = new java.util.BitSet(u.members.size());
        int retired = Wire.readCount(in, "retired query");
        for (int i = 0; i < retired; i++) {
          long m = Wire.readVarLong(in);
          if (m < 0 || m >= u.members.size()) {
            throw new IOException("no member " + m + " in a unit of " + u.members.size());
          }
          state.retired.set((int) m);
        }
      }
      int burst = Wire.readCount(in, "burst event");
      for (int i = 0; i < burst; i++) {
        state.burst.add(Wire.readEvent(in));
      }
      int windows = Wire.readCount(in, "window");
      for (int i = 0; i < windows; i++) {
        long start = Wire.readVarLong(in);
        long end = Wire.readVarLong(in);
        TrendState.WindowState w = new TrendState.WindowState(start, end, u.members.size());
        for (int m = 0; m < w.members.length; m++) {
          if (state.isRetired(m)) {
            w.members[m] = null;
          } else {
            readQueryWindow(in, u.members.get(m), w.members[m]);
          }
        }
        state.windows.addLast(w);
      }
      return state;
    } catch (EOFException e) {
      throw new IOException("the encoded trend state ends early", e);
    }
  }

  private static void writeQueryWindow(DataOutput out, QueryPlan q, QueryWindow w)
      throws IOException {
    // Bursts deferred for the query are applied first: the encoding holds current sums only.
    q.settle(w);
    Wire.writeVarLong(out, w.windowNegated);
    Wire.writeVarLong(out, w.pendingTime);
    Wire.writeVarLong(out, w.pendingNegated);
    Wire.writeVarLong(out, w.pending.size());
    for (QueryWindow.Pending p : w.pending) {
      Wire.writeVarLong(out, p.set());
      Wire.writeSums(out, p.value());
      QueryPlan.SetInfo info = q.info(p.set());
      if (info.indexed) {
        writeKey(out, info, p.key());
      }
    }
    Wire.writeVarLong(out, w.buckets.size());
    for (QueryWindow.Bucket b : w.buckets) {
      Wire.writeVarLong(out, b.info.set);
      Wire.writeVarLong(out, b.negated);
      Wire.writeSums(out, b.total);
      if (b.index != null) {
        Wire.writeVarLong(out, b.index.size());
        IOException[] failure = {null};
        b.index.forEach(
            (key, sums) -> {
              try {
                writeKey(out, b.info, key);
                Wire.writeSums(out, sums);
              } catch (IOException e) {
                failure[0] = e;
              }
            });
        if (failure[0] != null) {
          throw failure[0];
        }
      }
    }
  }

  private static void readQueryWindow(DataInput in, QueryPlan q, QueryWindow w) throws IOException {
    w.windowNegated = Wire.readVarLong(in);
    w.pendingTime = Wire.readVarLong(in);
    w.pendingNegated = Wire.readVarLong(in);
    int pending = Wire.readCount(in, "pending prefix");
    for (int i = 0; i < pending; i++) {
      QueryPlan.SetInfo info = info(q, Wire.readVarLong(in));
      TrendSums value = Wire.readSums(in, q.shape);
      Object key = info.indexed ? readKey(in, info) : null;
      w.pending.add(new QueryWindow.Pending(info.set, value, key));
    }
    int buckets = Wire.readCount(in, "bucket");
    for (int i = 0; i < buckets; i++) {
      QueryPlan.SetInfo info = info(q, Wire.readVarLong(in));
      long negated = Wire.readVarLong(in);
      TrendSums total = Wire.readSums(in, q.shape);
      AdjacencyIndex index = null;
      if (info.indexed) {
        index = AdjacencyIndex.create(info.predicates, q.shape);
        int entries = Wire.readCount(in, "index entry");
        for (int k = 0; k < entries; k++) {
          Object key = readKey(in, info);
          index.insert(key, Wire.readSums(in, q.shape));
        }
      }
      w.buckets.add(new QueryWindow.Bucket(info, negated, total, index));
    }
  }

  /** A state set read back: non-empty, within the automaton, of states of one type. */
  private static QueryPlan.SetInfo info(QueryPlan q, long set) throws IOException {
    TrendAutomaton a = q.compiled.automaton;
    if (set == 0 || (a.size() < 64 && (set >>> a.size()) != 0)) {
      throw new IOException(
          "bad automaton state set " + Long.toBinaryString(set) + " for " + q.name());
    }
    String type = a.label(Long.numberOfTrailingZeros(set));
    if ((a.statesOf(type) & set) != set) {
      throw new IOException("automaton state set of several types for " + q.name());
    }
    return q.info(set);
  }

  private static void writeKey(DataOutput out, QueryPlan.SetInfo info, Object key)
      throws IOException {
    if (info.predicates.length == 1) {
      Wire.writeValue(out, key);
    } else {
      for (Object v : (Object[]) key) {
        Wire.writeValue(out, v);
      }
    }
  }

  private static Object readKey(DataInput in, QueryPlan.SetInfo info) throws IOException {
    if (info.predicates.length == 1) {
      return Wire.readValue(in);
    }
    Object[] key = new Object[info.predicates.length];
    for (int i = 0; i < key.length; i++) {
      key[i] = Wire.readValue(in);
    }
    return key;
  }

  /** FNV-1a over the queries and the sharing mode: the same on every JVM. */
  private static long fingerprint(TrendPlan plan) {
    StringBuilder text = new StringBuilder(plan.sharing().name());
    plan.queries().forEach(q -> text.append('\n').append(q.compiled.query));
    long h = 0xcbf29ce484222325L;
    for (byte b : text.toString().getBytes(StandardCharsets.UTF_8)) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    return h;
  }
}
