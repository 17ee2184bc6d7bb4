package dev.eventide.pipelines;

import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.values.TypeDescriptor;

/**
 * The checkpoint of a replayable source's reader: how many elements it had emitted. A reader
 * restored from it regenerates or re-reads its input and skips that many; nothing is acknowledged.
 */
public final class EmittedCount implements UnboundedSource.CheckpointMark {
  private final long emitted;

  public EmittedCount(long emitted) {
    this.emitted = emitted;
  }

  public long emitted() {
    return emitted;
  }

  @Override
  public void finalizeCheckpoint() {}

  /** The mark's coder: the count as a var-long. */
  public static Coder<EmittedCount> coder() {
    return RecordCoder.of(
        TypeDescriptor.of(EmittedCount.class),
        VarLongCoder.of(),
        EmittedCount::emitted,
        EmittedCount::new);
  }
}
