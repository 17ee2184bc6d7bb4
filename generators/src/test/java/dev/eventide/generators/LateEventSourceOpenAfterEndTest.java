package dev.eventide.generators;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A source that stays open after its last event reads every event, then reports the watermark it
 * was given, and goes on answering that nothing is there instead of ending.
 */
class LateEventSourceOpenAfterEndTest {
  private static final LateEventGenerator EVENTS =
      LateEventGenerator.builder().setEvents(100).setEventsPerWindow(20).setSeed(3).build();

  @Test
  void readsEveryEventThenHoldsTheWatermarkItWasGiven() throws Exception {
    Instant last = EVENTS.watermarkAt(EVENTS.arrivalTime(EVENTS.events() - 1));
    Instant open = last.plus(Duration.standardDays(1));
    LateEventSource source =
        (LateEventSource) LateEventSource.openAfterEnd(EVENTS, open).getSource();
    UnboundedSource.UnboundedReader<LateEvent> reader =
        source.createReader(PipelineOptionsFactory.create(), null);
    List<LateEvent> read = new ArrayList<>();
    for (boolean more = reader.start(); more; more = reader.advance()) {
      read.add(reader.getCurrent());
    }
    List<LateEvent> expected = new ArrayList<>();
    EVENTS.forEach(expected::add);
    assertEquals(expected, read);
    for (int poll = 0; poll < 3; poll++) {
      assertFalse(reader.advance(), "nothing after the last event");
      assertEquals(open, reader.getWatermark());
    }
  }

  @Test
  void aWatermarkBeforeTheStreamsLastOrAtTheEndOfTimeIsRefused() {
    Instant last = EVENTS.watermarkAt(EVENTS.arrivalTime(EVENTS.events() - 1));
    IllegalArgumentException before =
        assertThrows(
            IllegalArgumentException.class,
            () -> LateEventSource.openAfterEnd(EVENTS, last.minus(Duration.millis(1))));
    assertTrue(before.getMessage().contains("last watermark " + last), before.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> LateEventSource.openAfterEnd(EVENTS, BoundedWindow.TIMESTAMP_MAX_VALUE));
  }
}
