package dev.eventide.trends.beam;

import dev.eventide.testing.runners.TestRunner;
import dev.eventide.testing.streams.GatedReplay;
import dev.eventide.trends.Event;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Instant;

/**
 * Events and watermark advances in order, read as the runner needs them so that every event arrives
 * under the watermark the test means: a {@link TestStream} on the DirectRunner (which holds a
 * step's input watermark at its pending elements' times until it has seen an advance; the events
 * between two advances go in one batch), a {@link GatedReplay} on Flink (whose {@code TestStream}
 * may let elements overtake watermarks).
 */
final class Arrivals {
  // An element, or (no value) a watermark advance to the timestamp.
  private final List<TimestampedValue<Event>> steps = new ArrayList<>();
  private Instant watermark = null;

  /** Adds an event at its own time. */
  Arrivals add(Event e) {
    steps.add(TimestampedValue.of(e, new Instant(e.time())));
    return this;
  }

  /** Advances the watermark; an advance to where it already is adds nothing. */
  Arrivals advanceWatermarkTo(Instant to) {
    if (watermark == null || to.isAfter(watermark)) {
      steps.add(TimestampedValue.of(null, to));
      watermark = to;
    }
    return this;
  }

  PTransform<PBegin, PCollection<Event>> on(TestRunner runner) {
    if (runner.honorsTestStreamWatermarks()) {
      TestStream.Builder<Event> stream = TestStream.create(EventCoder.of());
      List<TimestampedValue<Event>> batch = new ArrayList<>();
      for (TimestampedValue<Event> step : steps) {
        if (step.getValue() != null) {
          batch.add(step);
          continue;
        }
        stream = add(stream, batch).advanceWatermarkTo(step.getTimestamp());
        batch = new ArrayList<>();
      }
      return add(stream, batch).advanceWatermarkToInfinity();
    }
    GatedReplay.Builder<Event> replay = GatedReplay.builder(EventCoder.of());
    for (TimestampedValue<Event> step : steps) {
      replay =
          step.getValue() == null
              ? replay.advanceWatermarkTo(step.getTimestamp())
              : replay.add(step.getValue(), step.getTimestamp());
    }
    return replay.build();
  }

  private static TestStream.Builder<Event> add(
      TestStream.Builder<Event> stream, List<TimestampedValue<Event>> batch) {
    if (batch.isEmpty()) {
      return stream;
    }
    return stream.addElements(
        batch.get(0), batch.subList(1, batch.size()).toArray(TimestampedValue[]::new));
  }
}
