package dev.eventide.testing.streams;

import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LateEventGenerator;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Instant;

/**
 * A {@link LateEventGenerator}'s stream replayed for tests: the same events in arrival order,
 * timestamped with their event times, with the watermark each arrived under.
 *
 * <pre>{@code
 * LateEventGenerator generator = LateEventGenerator.builder().setEvents(5_000).setSeed(3).build();
 * PCollection<LateEvent> events = p.apply(LateEventStreams.gatedReplay(generator));
 * }</pre>
 */
public final class LateEventStreams {
  private LateEventStreams() {}

  /**
   * The events as a {@link TestStream}, the watermark advanced as the generator's periodic
   * watermark moves and to infinity after the last event.
   */
  public static TestStream<LateEvent> testStream(LateEventGenerator generator) {
    TestStream.Builder<LateEvent> stream = TestStream.create(LateEvent.EventCoder.of());
    Instant watermark = null;
    List<TimestampedValue<LateEvent>> batch = new ArrayList<>();
    for (LateEvent event : generator) {
      if (!event.watermark().equals(watermark)) {
        stream = flush(stream, batch);
        stream = stream.advanceWatermarkTo(event.watermark());
        watermark = event.watermark();
      }
      batch.add(TimestampedValue.of(event, event.eventTime()));
    }
    return flush(stream, batch).advanceWatermarkToInfinity();
  }

  /**
   * The events as a {@link GatedReplay}, for a runner whose {@code TestStream} lets events overtake
   * watermarks (Flink): each watermark reaches the source's consumers before any later event, so
   * the events meant to be late are late however loaded the machine is.
   */
  public static GatedReplay<LateEvent> gatedReplay(LateEventGenerator generator) {
    GatedReplay.Builder<LateEvent> replay = GatedReplay.builder(LateEvent.EventCoder.of());
    Instant watermark = null;
    for (LateEvent event : generator) {
      if (!event.watermark().equals(watermark)) {
        replay.advanceWatermarkTo(event.watermark());
        watermark = event.watermark();
      }
      replay.add(event, event.eventTime());
    }
    return replay.build();
  }

  private static TestStream.Builder<LateEvent> flush(
      TestStream.Builder<LateEvent> stream, List<TimestampedValue<LateEvent>> batch) {
    if (batch.isEmpty()) {
      return stream;
    }
    TestStream.Builder<LateEvent> next =
        stream.addElements(
            batch.get(0), batch.subList(1, batch.size()).toArray(new TimestampedValue[0]));
    batch.clear();
    return next;
  }
}
