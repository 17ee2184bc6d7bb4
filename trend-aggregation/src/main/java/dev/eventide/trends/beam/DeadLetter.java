package dev.eventide.trends.beam;

import dev.eventide.trends.Event;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;

/**
 * An event {@link TrendAggregate} did not aggregate, with the reason: it lacks an attribute the
 * workload needs (or has one of the wrong kind), its time is outside what windows can represent, or
 * it came later than the allowed lateness of the queries that read it.
 *
 * <pre>{@code
 * TrendAggregate.Result out = events.apply(TrendAggregate.of(workload));
 * PCollection<String> reasons =
 *     out.deadLetters()
 *         .apply(
 *             MapElements.into(TypeDescriptors.strings())
 *                 .via((DeadLetter d) -> d.event().type() + ": " + d.reason()));
 * }</pre>
 */
public record DeadLetter(Event event, String reason) {

  public DeadLetter {
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(reason, "reason");
  }

  /** The Beam coder of dead letters. */
  public static final class Coder extends AtomicCoder<DeadLetter> {
    private static final Coder INSTANCE = new Coder();
    private static final long serialVersionUID = 1L;

    private Coder() {}

    public static Coder of() {
      return INSTANCE;
    }

    @Override
    public void encode(DeadLetter letter, OutputStream out) throws IOException {
      EventCoder.of().encode(letter.event(), out);
      StringUtf8Coder.of().encode(letter.reason(), out);
    }

    @Override
    public DeadLetter decode(InputStream in) throws IOException {
      return new DeadLetter(EventCoder.of().decode(in), StringUtf8Coder.of().decode(in));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
