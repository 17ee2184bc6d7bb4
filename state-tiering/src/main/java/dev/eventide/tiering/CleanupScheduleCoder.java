package dev.eventide.tiering;

import dev.eventide.tiering.internal.lateness.CleanupSchedule;
import dev.eventide.tiering.internal.lateness.CleanupSchedule.Change;
import dev.eventide.tiering.internal.lateness.CleanupSchedule.Terms;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.coders.AtomicCoder;

/** The {@link LatenessGate}'s per-key {@link CleanupSchedule} in Beam state; versioned. */
final class CleanupScheduleCoder extends AtomicCoder<CleanupSchedule> {
  private static final int VERSION = 1;

  @Override
  public void encode(CleanupSchedule schedule, OutputStream out) throws IOException {
    DataOutputStream data = new DataOutputStream(out);
    data.writeByte(VERSION);
    data.writeLong(schedule.maxSeen());
    data.writeLong(schedule.maxSpan());
    data.writeInt(schedule.current());
    data.writeInt(schedule.sinceUpdate());
    data.writeInt(schedule.changes().size());
    for (Change change : schedule.changes()) {
      data.writeLong(change.fromStart());
      data.writeLong(change.terms().cleanupMillis());
      long[] executions = change.terms().executions();
      data.writeInt(executions.length);
      for (long x : executions) {
        data.writeLong(x);
      }
    }
    data.flush();
  }

  @Override
  public CleanupSchedule decode(InputStream in) throws IOException {
    DataInputStream data = new DataInputStream(in);
    int version = data.readByte();
    if (version != VERSION) {
      throw new IOException(
          "TieredWindow's cleanup schedule has format version "
              + version
              + ", expected "
              + VERSION);
    }
    long maxSeen = data.readLong();
    long maxSpan = data.readLong();
    int current = data.readInt();
    int sinceUpdate = data.readInt();
    int n = data.readInt();
    List<Change> changes = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      long from = data.readLong();
      long cleanup = data.readLong();
      long[] executions = new long[data.readInt()];
      for (int j = 0; j < executions.length; j++) {
        executions[j] = data.readLong();
      }
      changes.add(new Change(from, new Terms(cleanup, executions)));
    }
    return new CleanupSchedule(maxSeen, maxSpan, current, sinceUpdate, changes);
  }

  @Override
  public void verifyDeterministic() {}
}
