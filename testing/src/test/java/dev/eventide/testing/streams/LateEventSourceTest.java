package dev.eventide.testing.streams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.is;

import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LateEventGenerator;
import dev.eventide.generators.LateEventSource;
import dev.eventide.testing.runners.OnEachRunner;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

class LateEventSourceTest {
  private static final LateEventGenerator GENERATOR =
      LateEventGenerator.builder().setEventsPerWindow(50).setEvents(400).setKeys(3).build();

  @OnEachRunner
  void readsEveryGeneratedEventAndEnds(TestPipeline p) {
    PCollection<LateEvent> events = p.apply(LateEventSource.read(GENERATOR));
    PAssert.that(events).containsInAnyOrder(GENERATOR.generate());
    p.run();
  }

  @OnEachRunner
  void lateEventsWithinLatenessReachTheirWindows(TestPipeline p) {
    // A lateness longer than any delay keeps every event, whatever the runner's watermark lag;
    // with discarding panes, the pane counts add up to the number of events.
    PCollection<Long> paneCounts =
        p.apply(LateEventSource.read(GENERATOR))
            .apply(
                Window.<LateEvent>into(FixedWindows.of(GENERATOR.window()))
                    .withAllowedLateness(Duration.standardDays(1))
                    .discardingFiredPanes())
            .apply(Combine.globally(Count.<LateEvent>combineFn()).withoutDefaults());
    PAssert.that(paneCounts)
        .satisfies(
            counts -> {
              long total = 0;
              for (long c : counts) {
                total += c;
              }
              assertThat(total, equalTo(400L));
              return null;
            });
    p.run();
  }

  @Test
  void readerRestoredFromCheckpointContinuesTheSameStream() throws Exception {
    LateEventSource source = LateEventSource.of(GENERATOR);
    var options = PipelineOptionsFactory.create();
    var reader = source.createReader(options, null);
    List<LateEvent> read = new ArrayList<>();
    // A checkpoint covers every event read so far, the current one included.
    for (boolean available = reader.start(); available; available = reader.advance()) {
      read.add(reader.getCurrent());
      if (read.size() == 150) {
        break;
      }
    }
    LateEventSource.Position position = (LateEventSource.Position) reader.getCheckpointMark();
    var restored = source.createReader(options, position);
    for (boolean available = restored.start(); available; available = restored.advance()) {
      read.add(restored.getCurrent());
      assertThat(restored.getCurrentTimestamp(), equalTo(restored.getCurrent().eventTime()));
    }
    assertThat(read, equalTo(GENERATOR.generate()));
    assertThat(restored.getWatermark(), equalTo(BoundedWindow.TIMESTAMP_MAX_VALUE));
  }

  @Test
  void watermarkFollowsTheGeneratorUntilTheEnd() throws Exception {
    var reader = LateEventSource.of(GENERATOR).createReader(PipelineOptionsFactory.create(), null);
    assertThat(reader.getWatermark(), equalTo(BoundedWindow.TIMESTAMP_MIN_VALUE));
    for (boolean more = reader.start(); more; more = reader.advance()) {
      assertThat(reader.getWatermark(), equalTo(reader.getCurrent().watermark()));
    }
    assertThat(reader.getWatermark(), is(BoundedWindow.TIMESTAMP_MAX_VALUE));
  }

  @Test
  void aPacedSourceReportsEachNewWatermarkBeforeTheEventsUnderIt() throws Exception {
    LateEventSource source =
        (LateEventSource) LateEventSource.paced(GENERATOR, Duration.millis(1)).getSource();
    var reader = source.createReader(PipelineOptionsFactory.create(), null);
    List<LateEvent> read = new ArrayList<>();
    int pauses = 0;
    boolean more = reader.start();
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (true) {
      assertThat(
          "the paced source ended within 2 minutes; read " + read.size() + " events",
          System.nanoTime() < deadline,
          is(true));
      if (more) {
        read.add(reader.getCurrent());
      } else if (reader.getWatermark().equals(BoundedWindow.TIMESTAMP_MAX_VALUE)) {
        break;
      } else {
        pauses++;
        // While it pauses, the watermark is already the one the next event arrives under.
        assertThat(reader.getWatermark().isAfter(read.get(read.size() - 1).watermark()), is(true));
      }
      more = reader.advance();
    }
    assertThat(read, equalTo(GENERATOR.generate()));
    assertThat("it paused at every watermark move", pauses > 0, is(true));
  }

  @Test
  void aHeldSourceWaitsForACheckpointCoveringTheEventsBeforeTheHold() throws Exception {
    LateEventSource source =
        (LateEventSource)
            LateEventSource.heldUntilCheckpoint(GENERATOR, UUID.randomUUID().toString(), 10)
                .getSource();
    var reader = source.createReader(PipelineOptionsFactory.create(), null);
    int read = readWhileItCan(reader).size();
    assertThat("it stops before event 10", read, equalTo(10));
    assertThat(reader.advance(), is(false));
    // A checkpoint of fewer events does not open it; one that covers the ten does.
    var early = source.createReader(PipelineOptionsFactory.create(), null);
    early.start();
    early.getCheckpointMark().finalizeCheckpoint();
    assertThat(reader.advance(), is(false));
    reader.getCheckpointMark().finalizeCheckpoint();
    for (boolean more = reader.advance(); more; more = reader.advance()) {
      read++;
    }
    assertThat(read, equalTo(400));
  }

  @Test
  void aDrillStandsStillAfterTheCheckpointUntilARestoredReaderTakesOver() throws Exception {
    LateEventSource source =
        (LateEventSource)
            LateEventSource.stalledUntilRestored(GENERATOR, UUID.randomUUID().toString(), 10)
                .getSource();
    var reader = source.createReader(PipelineOptionsFactory.create(), null);
    List<LateEvent> read = readWhileItCan(reader);
    assertThat("it stops before event 10", read.size(), equalTo(10));
    var checkpoint = (LateEventSource.Position) reader.getCheckpointMark();
    checkpoint.finalizeCheckpoint();
    assertThat(
        "a completed checkpoint does not move the first reader", reader.advance(), is(false));
    assertThat(reader.getWatermark().equals(BoundedWindow.TIMESTAMP_MAX_VALUE), is(false));

    var restored = source.createReader(PipelineOptionsFactory.create(), checkpoint);
    read.addAll(readWhileItCan(restored));
    assertThat(restored.getWatermark(), equalTo(BoundedWindow.TIMESTAMP_MAX_VALUE));
    assertThat(read, equalTo(GENERATOR.generate()));
  }

  /** Starts the reader and reads until it has nothing more for now. */
  private static List<LateEvent> readWhileItCan(UnboundedSource.UnboundedReader<LateEvent> reader)
      throws IOException {
    List<LateEvent> read = new ArrayList<>();
    for (boolean more = reader.start(); more; more = reader.advance()) {
      read.add(reader.getCurrent());
    }
    return read;
  }
}
