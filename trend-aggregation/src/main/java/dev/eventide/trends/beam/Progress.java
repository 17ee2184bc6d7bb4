package dev.eventide.trends.beam;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.CoderException;

/**
 * What {@link TrendAggregateFn} knows of one key's time, kept in Beam state: how far its windows
 * are evaluated and expired, where its timers are set, and how many panes each window and query has
 * emitted (only kept while late events can still change a window). Mutable.
 */
final class Progress {
  static final long NONE = Long.MAX_VALUE;

  /** The time up to which events are advanced and windows closed (inclusive). */
  long evaluatedUpTo = Long.MIN_VALUE;

  /** The time the watermark passed when retained events were last expired. */
  long expiredUpTo = Long.MIN_VALUE;

  /** The fire timer's firing time and output timestamp; {@link #NONE} when it is not set. */
  long fireAt = NONE;

  long holdAt = NONE;

  /** The expire timer's firing time, {@link #NONE} when it is not set. */
  long expireAt = NONE;

  /**
   * Whether the expire timer found retained events it could not drop because a window holding them
   * is still open: the next fire sets it again.
   */
  boolean expireAfterFire;

  /** How many retained events are in the memory bucket ({@link RetainedEvents}). */
  long retainedInMemory;

  /** Whether the cleanup timer (at the end of time, deleting the key's blocks) is set. */
  boolean cleanupSet;

  /** The slices of SLIDE holding filed pending events, each with its earliest event time. */
  final TreeMap<Long, Long> pendingSlices = new TreeMap<>();

  /** Panes emitted per window start and query. */
  final Map<PaneKey, Integer> panes = new HashMap<>();

  record PaneKey(long windowStart, String query) {}

  /** The coder of {@link Progress}. */
  static final class Coder extends AtomicCoder<Progress> {
    private static final long serialVersionUID = 1L;
    private static final int VERSION = 2;

    @Override
    public void encode(Progress p, OutputStream stream) throws IOException {
      DataOutputStream out = new DataOutputStream(stream);
      out.writeByte(VERSION);
      out.writeLong(p.evaluatedUpTo);
      out.writeLong(p.expiredUpTo);
      out.writeLong(p.fireAt);
      out.writeLong(p.holdAt);
      out.writeLong(p.expireAt);
      out.writeBoolean(p.expireAfterFire);
      out.writeLong(p.retainedInMemory);
      out.writeBoolean(p.cleanupSet);
      out.writeInt(p.pendingSlices.size());
      for (Map.Entry<Long, Long> e : p.pendingSlices.entrySet()) {
        out.writeLong(e.getKey());
        out.writeLong(e.getValue());
      }
      out.writeInt(p.panes.size());
      for (Map.Entry<PaneKey, Integer> e : p.panes.entrySet()) {
        out.writeLong(e.getKey().windowStart());
        out.writeUTF(e.getKey().query());
        out.writeInt(e.getValue());
      }
      out.flush();
    }

    @Override
    public Progress decode(InputStream stream) throws IOException {
      DataInputStream in = new DataInputStream(stream);
      int version = in.readUnsignedByte();
      if (version != VERSION) {
        throw new CoderException("trend progress of version " + version + ", expected " + VERSION);
      }
      Progress p = new Progress();
      p.evaluatedUpTo = in.readLong();
      p.expiredUpTo = in.readLong();
      p.fireAt = in.readLong();
      p.holdAt = in.readLong();
      p.expireAt = in.readLong();
      p.expireAfterFire = in.readBoolean();
      p.retainedInMemory = in.readLong();
      p.cleanupSet = in.readBoolean();
      int slices = in.readInt();
      for (int i = 0; i < slices; i++) {
        p.pendingSlices.put(in.readLong(), in.readLong());
      }
      int panes = in.readInt();
      for (int i = 0; i < panes; i++) {
        p.panes.put(new PaneKey(in.readLong(), in.readUTF()), in.readInt());
      }
      return p;
    }
  }
}
