package dev.eventide.pipelines.trends;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.pipelines.EmittedCount;
import dev.eventide.trends.Event;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.util.CoderUtils;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

class EventStreamTest {
  private static final PipelineOptions OPTIONS = PipelineOptionsFactory.create();

  /** 12,345 events, three on each millisecond: shards of 5,000, 5,000 and 2,345. */
  private static List<Event> events() {
    List<Event> events = new ArrayList<>();
    for (int i = 0; i < 12_345; i++) {
      events.add(Event.of(i % 2 == 0 ? "A" : "B", i / 3, "n", i));
    }
    return events;
  }

  private static EventStream source(List<Event> events) {
    return (EventStream) ((Read.Unbounded<Event>) EventStream.of(events)).getSource();
  }

  @Test
  void splitsReadEveryEventOnceInTimeOrderUnderAWatermarkThatFollowsThem() throws IOException {
    List<Event> events = events();
    List<EventStream> splits = source(events).split(2, OPTIONS);
    assertEquals(2, splits.size());
    List<Event> read = new ArrayList<>();
    for (EventStream split : splits) {
      UnboundedSource.UnboundedReader<Event> reader = split.createReader(OPTIONS, null);
      assertEquals(BoundedWindow.TIMESTAMP_MIN_VALUE, reader.getWatermark(), "before the first");
      long last = Long.MIN_VALUE;
      for (boolean more = reader.start(); more; more = reader.advance()) {
        Event e = reader.getCurrent();
        assertTrue(e.time() >= last, "time order within a split");
        last = e.time();
        assertEquals(new Instant(e.time()), reader.getCurrentTimestamp());
        assertEquals(new Instant(e.time()), reader.getWatermark(), "no later event is earlier");
        read.add(e);
      }
      assertEquals(BoundedWindow.TIMESTAMP_MAX_VALUE, reader.getWatermark(), "ended");
      assertFalse(reader.advance());
    }
    // Round-robin shards: the first split holds shards 0 and 2, the second shard 1.
    assertEquals(events.get(0), read.get(0));
    assertEquals(events.get(10_000), read.get(5_000));
    assertEquals(events.get(5_000), read.get(7_345));
    assertEquals(events.size(), read.size());
    assertEquals(
        new java.util.HashSet<>(events), new java.util.HashSet<>(read), "every event once");
  }

  @Test
  void aRestoredReaderGoesOnAfterTheEventsItHadEmitted() throws IOException {
    List<Event> events = events();
    EventStream source = source(events);
    UnboundedSource.UnboundedReader<Event> reader = source.createReader(OPTIONS, null);
    reader.start();
    for (int i = 1; i < 7_000; i++) {
      reader.advance();
    }
    byte[] mark =
        CoderUtils.encodeToByteArray(
            source.getCheckpointMarkCoder(), (EmittedCount) reader.getCheckpointMark());
    EmittedCount restored = CoderUtils.decodeFromByteArray(source.getCheckpointMarkCoder(), mark);
    UnboundedSource.UnboundedReader<Event> again = source.createReader(OPTIONS, restored);
    assertTrue(again.start());
    assertEquals(events.get(7_000), again.getCurrent());
  }

  @Test
  void eventsOutOfTimeOrderAreRefused() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> EventStream.of(List.of(Event.of("A", 5), Event.of("A", 4))));
    assertEquals(
        "a stream's events must be in time order, but event 1 at 4 follows one at 5",
        e.getMessage());
  }

  @Test
  void noEventsEndAtOnce() throws IOException {
    UnboundedSource.UnboundedReader<Event> reader =
        source(List.of()).split(2, OPTIONS).get(0).createReader(OPTIONS, null);
    assertFalse(reader.start());
    assertEquals(BoundedWindow.TIMESTAMP_MAX_VALUE, reader.getWatermark());
  }
}
