package dev.eventide.trends.beam;

import dev.eventide.trends.query.WorkloadChange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;

/** The Beam coder of {@link WorkloadChange}: its time, the added text or the removed names. */
final class WorkloadChangeCoder extends AtomicCoder<WorkloadChange> {
  private static final long serialVersionUID = 1L;
  private static final WorkloadChangeCoder INSTANCE = new WorkloadChangeCoder();
  private static final NullableCoder<String> ADD = NullableCoder.of(StringUtf8Coder.of());
  private static final ListCoder<String> REMOVE = ListCoder.of(StringUtf8Coder.of());

  private WorkloadChangeCoder() {}

  static WorkloadChangeCoder of() {
    return INSTANCE;
  }

  @Override
  public void encode(WorkloadChange change, OutputStream out) throws IOException {
    VarLongCoder.of().encode(change.time(), out);
    ADD.encode(change.add(), out);
    REMOVE.encode(change.remove(), out);
  }

  @Override
  public WorkloadChange decode(InputStream in) throws IOException {
    long time = VarLongCoder.of().decode(in);
    String add = ADD.decode(in);
    List<String> remove = REMOVE.decode(in);
    try {
      return new WorkloadChange(time, add, remove);
    } catch (IllegalArgumentException e) {
      throw new CoderException("not a workload change: " + e.getMessage());
    }
  }

  @Override
  public void verifyDeterministic() {}
}
