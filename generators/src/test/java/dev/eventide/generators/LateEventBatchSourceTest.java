package dev.eventide.generators;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.lessThanOrEqualTo;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/** The batched reader gives the generator's events, in order, in batches of one watermark. */
class LateEventBatchSourceTest {
  private static final LateEventGenerator EVENTS =
      LateEventGenerator.builder().setEvents(1_000).setEventsPerWindow(60).setSeed(4).build();

  @Test
  void batchesHoldTheStreamInOrderEachUnderOneWatermark() throws IOException {
    List<LateEvent> read = new ArrayList<>();
    int batches = 0;
    UnboundedSource.UnboundedReader<List<LateEvent>> reader =
        new LateEventBatchSource(EVENTS, 7).createReader(PipelineOptionsFactory.create(), null);
    for (boolean more = reader.start(); more; more = reader.advance()) {
      List<LateEvent> batch = reader.getCurrent();
      batches++;
      assertThat(batch.size(), lessThanOrEqualTo(7));
      Instant earliest = batch.get(0).eventTime();
      for (LateEvent e : batch) {
        assertThat(e.watermark(), equalTo(batch.get(0).watermark()));
        earliest = e.eventTime().isBefore(earliest) ? e.eventTime() : earliest;
      }
      assertThat(reader.getCurrentTimestamp(), equalTo(earliest));
      assertThat(reader.getWatermark(), equalTo(batch.get(0).watermark()));
      read.addAll(batch);
    }
    assertThat(read, equalTo(EVENTS.generate()));
    assertThat(batches, greaterThan(1_000 / 7));
    assertThat(reader.getWatermark(), equalTo(BoundedWindow.TIMESTAMP_MAX_VALUE));
  }

  @Test
  void aReaderRestoredFromACheckpointContinuesTheStream() throws IOException {
    LateEventBatchSource source = new LateEventBatchSource(EVENTS, 50);
    UnboundedSource.UnboundedReader<List<LateEvent>> first =
        source.createReader(PipelineOptionsFactory.create(), null);
    List<LateEvent> read = new ArrayList<>();
    first.start();
    for (int i = 0; i < 5; i++) {
      read.addAll(first.getCurrent());
      first.advance();
    }
    read.addAll(first.getCurrent());
    LateEventSource.Position position = (LateEventSource.Position) first.getCheckpointMark();
    assertThat(position.consumed(), equalTo((long) read.size()));
    UnboundedSource.UnboundedReader<List<LateEvent>> restored =
        source.createReader(PipelineOptionsFactory.create(), position);
    assertThat(restored.getWatermark(), equalTo(first.getWatermark()));
    for (boolean more = restored.advance(); more; more = restored.advance()) {
      read.addAll(restored.getCurrent());
    }
    assertThat(read, equalTo(EVENTS.generate()));
  }
}
