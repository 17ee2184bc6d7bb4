package dev.eventide.trends.beam;

import dev.eventide.testing.runners.TestRunner;
import dev.eventide.testing.streams.GatedReplay;
import dev.eventide.trends.Event;
import dev.eventide.trends.query.WorkloadChange;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Instant;

/**
 * Events (and workload changes) and watermark advances in order, read as the runner needs them so
 * that every element arrives under the watermark the test means: a {@link TestStream} on the
 * DirectRunner (which holds a step's input watermark at its pending elements' times until it has
 * seen an advance; the elements between two advances go in one batch), a {@link GatedReplay} on
 * Flink (whose {@code TestStream} may let elements overtake watermarks).
 */
final class Arrivals {
  /** An event or a change, as the script reads them. */
  record Arrival(Event event, WorkloadChange change) {}

  /** What a script read: its events, and its changes. */
  record Read(PCollection<Event> events, PCollection<WorkloadChange> changes) {}

  // An element, or (no value) a watermark advance to the timestamp.
  private final List<TimestampedValue<Arrival>> steps = new ArrayList<>();
  private Instant watermark = null;

  /** Adds an event at its own time. */
  Arrivals add(Event e) {
    steps.add(TimestampedValue.of(new Arrival(e, null), new Instant(e.time())));
    return this;
  }

  /** Adds a workload change at its own time. */
  Arrivals add(WorkloadChange c) {
    steps.add(TimestampedValue.of(new Arrival(null, c), new Instant(c.time())));
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

  /** The script's events. */
  PTransform<PBegin, PCollection<Event>> on(TestRunner runner) {
    return new PTransform<>() {
      @Override
      public PCollection<Event> expand(PBegin begin) {
        return read(begin, runner, "").events();
      }
    };
  }

  /** The script's events and changes, from one source; {@code name} ends its steps' names. */
  Read read(PBegin begin, TestRunner runner, String name) {
    PCollection<Arrival> all = begin.apply("Script" + name, source(runner));
    PCollection<Event> events =
        all.apply("Events" + name, ParDo.of(new EventsOf())).setCoder(EventCoder.of());
    PCollection<WorkloadChange> changes =
        all.apply("Changes" + name, ParDo.of(new ChangesOf())).setCoder(WorkloadChangeCoder.of());
    return new Read(events, changes);
  }

  private static final class EventsOf extends DoFn<Arrival, Event> {
    @ProcessElement
    public void process(@Element Arrival a, OutputReceiver<Event> out) {
      if (a.event() != null) {
        out.output(a.event());
      }
    }
  }

  private static final class ChangesOf extends DoFn<Arrival, WorkloadChange> {
    @ProcessElement
    public void process(@Element Arrival a, OutputReceiver<WorkloadChange> out) {
      if (a.change() != null) {
        out.output(a.change());
      }
    }
  }

  private PTransform<PBegin, PCollection<Arrival>> source(TestRunner runner) {
    if (runner.honorsTestStreamWatermarks()) {
      TestStream.Builder<Arrival> stream = TestStream.create(new ArrivalCoder());
      List<TimestampedValue<Arrival>> batch = new ArrayList<>();
      for (TimestampedValue<Arrival> step : steps) {
        if (step.getValue() != null) {
          batch.add(step);
          continue;
        }
        stream = add(stream, batch).advanceWatermarkTo(step.getTimestamp());
        batch = new ArrayList<>();
      }
      return add(stream, batch).advanceWatermarkToInfinity();
    }
    GatedReplay.Builder<Arrival> replay = GatedReplay.builder(new ArrivalCoder());
    for (TimestampedValue<Arrival> step : steps) {
      replay =
          step.getValue() == null
              ? replay.advanceWatermarkTo(step.getTimestamp())
              : replay.add(step.getValue(), step.getTimestamp());
    }
    return replay.build();
  }

  private static TestStream.Builder<Arrival> add(
      TestStream.Builder<Arrival> stream, List<TimestampedValue<Arrival>> batch) {
    if (batch.isEmpty()) {
      return stream;
    }
    return stream.addElements(
        batch.get(0), batch.subList(1, batch.size()).toArray(TimestampedValue[]::new));
  }

  private static final class ArrivalCoder extends AtomicCoder<Arrival> {
    private static final long serialVersionUID = 1L;

    @Override
    public void encode(Arrival a, OutputStream out) throws IOException {
      if (a.event() != null) {
        out.write(0);
        EventCoder.of().encode(a.event(), out);
      } else {
        out.write(1);
        WorkloadChangeCoder.of().encode(a.change(), out);
      }
    }

    @Override
    public Arrival decode(InputStream in) throws IOException {
      return in.read() == 0
          ? new Arrival(EventCoder.of().decode(in), null)
          : new Arrival(null, WorkloadChangeCoder.of().decode(in));
    }
  }
}
