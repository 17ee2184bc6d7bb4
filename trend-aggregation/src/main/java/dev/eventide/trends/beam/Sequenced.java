package dev.eventide.trends.beam;

import dev.eventide.trends.Event;
import dev.eventide.trends.internal.engine.WorkloadVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.coders.StringUtf8Coder;

/**
 * What a shard of {@link SequencerFn} reads: an event, or a version of the workload that the change
 * log accepted, with its tag ({@link VersionStore}).
 */
record Sequenced(Event event, String tag, WorkloadVersion version) {

  static Sequenced of(Event event) {
    return new Sequenced(event, null, null);
  }

  static Sequenced of(String tag, WorkloadVersion version) {
    return new Sequenced(null, tag, version);
  }

  boolean isEvent() {
    return event != null;
  }

  static final class Coder extends AtomicCoder<Sequenced> {
    private static final long serialVersionUID = 1L;
    private static final Coder INSTANCE = new Coder();
    private static final int EVENT = 0;
    private static final int VERSION = 1;

    static Coder of() {
      return INSTANCE;
    }

    @Override
    public void encode(Sequenced s, OutputStream out) throws IOException {
      if (s.isEvent()) {
        out.write(EVENT);
        EventCoder.of().encode(s.event(), out);
      } else {
        out.write(VERSION);
        StringUtf8Coder.of().encode(s.tag(), out);
        VersionStore.VersionCoder.of().encode(s.version(), out);
      }
    }

    @Override
    public Sequenced decode(InputStream in) throws IOException {
      int kind = in.read();
      if (kind == EVENT) {
        return Sequenced.of(EventCoder.of().decode(in));
      }
      if (kind == VERSION) {
        String tag = StringUtf8Coder.of().decode(in);
        return Sequenced.of(tag, VersionStore.VersionCoder.of().decode(in));
      }
      throw new CoderException("not an event or a workload version: kind " + kind);
    }
  }
}
