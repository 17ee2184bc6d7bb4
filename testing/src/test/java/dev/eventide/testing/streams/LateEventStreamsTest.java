package dev.eventide.testing.streams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LateEventGenerator;
import dev.eventide.generators.LatenessDistribution;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

class LateEventStreamsTest {
  private static final LateEventGenerator GENERATOR =
      LateEventGenerator.builder()
          .setEvents(1_000)
          .setEventsPerWindow(100)
          .setWindow(Duration.standardSeconds(1))
          .setLateFraction(0.5)
          .setLateness(LatenessDistribution.parse("lognormal(0,1)"))
          .setSeed(7)
          .build();

  @Test
  void testStreamHoldsEveryEventOnceInArrivalOrderUnderItsWatermark() {
    List<LateEvent> replayed = new ArrayList<>();
    Instant watermark = BoundedWindow.TIMESTAMP_MIN_VALUE;
    for (TestStream.Event<LateEvent> event : LateEventStreams.testStream(GENERATOR).getEvents()) {
      if (event instanceof TestStream.WatermarkEvent) {
        watermark = ((TestStream.WatermarkEvent<LateEvent>) event).getWatermark();
      } else if (event instanceof TestStream.ElementEvent) {
        for (TimestampedValue<LateEvent> e :
            ((TestStream.ElementEvent<LateEvent>) event).getElements()) {
          assertThat(e.getTimestamp(), equalTo(e.getValue().eventTime()));
          assertThat(watermark, equalTo(e.getValue().watermark()));
          replayed.add(e.getValue());
        }
      }
    }
    assertThat(replayed, equalTo(GENERATOR.generate()));
  }
}
