package dev.eventide.pipelines.trends;

import dev.eventide.trends.Event;
import dev.eventide.trends.beam.EventCoder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Instant;

/**
 * A list of events as a bounded {@code PCollection<Event>}, each timestamped at its time: the
 * events go into the pipeline as a few encoded shards, which a DoFn decodes. Unlike {@code
 * Create.timestamped} over the events themselves, whose bounded reader on Flink updates Beam's
 * metrics after every element (about 30% of the reading thread's time at 200,000 events), the
 * per-element cost is one decode.
 */
final class EventList extends PTransform<PBegin, PCollection<Event>> {
  private static final int EVENTS_PER_SHARD = 5_000;
  private static final int MAX_SHARDS = 32;

  private final transient List<Event> events;

  private EventList(List<Event> events) {
    this.events = events;
  }

  static EventList of(List<Event> events) {
    return new EventList(List.copyOf(events));
  }

  @Override
  public PCollection<Event> expand(PBegin begin) {
    int shards = Math.max(1, Math.min(MAX_SHARDS, events.size() / EVENTS_PER_SHARD));
    List<byte[]> encoded = new ArrayList<>(shards);
    for (int s = 0; s < shards; s++) {
      encoded.add(
          encode(events.subList(s * events.size() / shards, (s + 1) * events.size() / shards)));
    }
    return begin
        .apply("Shards", Create.of(encoded).withCoder(ByteArrayCoder.of()))
        .apply("Decode", ParDo.of(new DecodeFn()))
        .setCoder(EventCoder.of());
  }

  private static final ListCoder<Event> SHARD = ListCoder.of(EventCoder.of());

  private static byte[] encode(List<Event> shard) {
    try {
      return CoderUtils.encodeToByteArray(SHARD, shard);
    } catch (IOException e) {
      throw new UncheckedIOException("could not encode the events", e);
    }
  }

  private static final long MIN = BoundedWindow.TIMESTAMP_MIN_VALUE.getMillis();
  private static final long MAX = GlobalWindow.INSTANCE.maxTimestamp().getMillis();

  private static final class DecodeFn extends DoFn<byte[], Event> {
    @ProcessElement
    public void process(@Element byte[] shard, OutputReceiver<Event> out) throws IOException {
      for (Event e : CoderUtils.decodeFromByteArray(SHARD, shard)) {
        // A time beyond Beam's timestamps goes in at the nearest one: TrendAggregate judges the
        // event by its own time and sets it aside as a dead letter.
        out.outputWithTimestamp(e, new Instant(Math.max(MIN, Math.min(MAX, e.time()))));
      }
    }
  }
}
