package dev.eventide.generators;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.DefaultCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.joda.time.Instant;

/**
 * One event of a {@link LateEventGenerator} stream.
 *
 * <pre>{@code
 * List<LateEvent> events = LateEventGenerator.builder().setEvents(1_000).build().generate();
 * long late = events.stream().filter(LateEvent::isLate).count();
 * }</pre>
 *
 * @param key the event's key, in {@code [0, keys)}
 * @param value the payload: a random integer, as in the Aion paper's "average" workload
 * @param eventTime when the event happened (its Beam timestamp)
 * @param arrivalTime when the event reaches the pipeline
 * @param watermark the generator's watermark when the event arrives: the event is late if its event
 *     time is before it
 */
@DefaultCoder(LateEvent.EventCoder.class)
public record LateEvent(
    int key, long value, Instant eventTime, Instant arrivalTime, Instant watermark)
    implements Serializable {

  /** Whether the event arrives behind the watermark. */
  public boolean isLate() {
    return eventTime.isBefore(watermark);
  }

  /** The deterministic coder of {@link LateEvent}. */
  public static final class EventCoder extends AtomicCoder<LateEvent> {
    private static final EventCoder INSTANCE = new EventCoder();
    private static final VarIntCoder INT = VarIntCoder.of();
    private static final VarLongCoder LONG = VarLongCoder.of();

    public static EventCoder of() {
      return INSTANCE;
    }

    private EventCoder() {}

    @Override
    public void encode(LateEvent event, OutputStream out) throws IOException {
      INT.encode(event.key(), out);
      LONG.encode(event.value(), out);
      LONG.encode(event.eventTime().getMillis(), out);
      LONG.encode(event.arrivalTime().getMillis(), out);
      LONG.encode(event.watermark().getMillis(), out);
    }

    @Override
    public LateEvent decode(InputStream in) throws IOException {
      return new LateEvent(
          INT.decode(in),
          LONG.decode(in),
          new Instant(LONG.decode(in)),
          new Instant(LONG.decode(in)),
          new Instant(LONG.decode(in)));
    }

    @Override
    public void verifyDeterministic() {}
  }
}
