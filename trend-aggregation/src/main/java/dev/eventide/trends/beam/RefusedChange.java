package dev.eventide.trends.beam;

import dev.eventide.trends.query.WorkloadChange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;

/**
 * A workload change sent to {@link TrendAggregate} while it runs that did not apply, with the
 * reason: its text does not parse (line and column within it), it adds a query under a name already
 * running or removes one that is not, or it came after the changes' watermark had passed its time
 * (the versions up to then were decided without it).
 *
 * <pre>{@code
 * TrendAggregate.Result out =
 *     events.apply(TrendAggregate.of(workload).withWorkloadChanges(changes, "file:///var/eventide"));
 * PCollection<String> why =
 *     out.refusedChanges()
 *         .apply(
 *             MapElements.into(TypeDescriptors.strings())
 *                 .via((RefusedChange r) -> r.change().describe() + ": " + r.reason()));
 * }</pre>
 */
public record RefusedChange(WorkloadChange change, String reason) {

  public RefusedChange {
    Objects.requireNonNull(change, "change");
    Objects.requireNonNull(reason, "reason");
  }

  /** The Beam coder of refused changes. */
  public static final class Coder extends AtomicCoder<RefusedChange> {
    private static final Coder INSTANCE = new Coder();
    private static final long serialVersionUID = 1L;

    private Coder() {}

    public static Coder of() {
      return INSTANCE;
    }

    @Override
    public void encode(RefusedChange refused, OutputStream out) throws IOException {
      WorkloadChangeCoder.of().encode(refused.change(), out);
      StringUtf8Coder.of().encode(refused.reason(), out);
    }

    @Override
    public RefusedChange decode(InputStream in) throws IOException {
      return new RefusedChange(
          WorkloadChangeCoder.of().decode(in), StringUtf8Coder.of().decode(in));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
