package dev.eventide.generators;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A hold that the runner never releases (no checkpoint completes, no restart comes) fails the read
 * at its limit, saying what it waited for, instead of standing still for ever.
 */
class LateEventSourceHoldTest {
  private static final LateEventGenerator EVENTS =
      LateEventGenerator.builder().setEvents(100).setEventsPerWindow(20).setSeed(2).build();
  private static final Duration LIMIT = Duration.millis(200);

  @Test
  void aHoldWithoutACheckpointFailsAtItsLimitSayingWhatItWaitedFor() throws Exception {
    String id = "hold-" + UUID.randomUUID();
    LateEventSource source =
        ((LateEventSource) LateEventSource.heldUntilCheckpoint(EVENTS, id, 40).getSource())
            .withHoldLimit(LIMIT);
    UnboundedSource.UnboundedReader<LateEvent> reader = readUpToTheHold(source, 40);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> standStill(reader));
    assertThat(
        e.getMessage(),
        equalTo(
            "LateEventSource hold '"
                + id
                + "' stood still for PT0.200S before event 40, waiting for a checkpoint that"
                + " covers the events before it; no checkpoint of it has completed (is"
                + " checkpointing on, in this JVM?)"));
  }

  @Test
  void aDrillThatNoFailureEndsFailsAtItsLimitSayingWhatItWaitedFor() throws Exception {
    String id = "drill-" + UUID.randomUUID();
    LateEventSource source =
        ((LateEventSource) LateEventSource.stalledUntilRestored(EVENTS, id, 40).getSource())
            .withHoldLimit(LIMIT);
    UnboundedSource.UnboundedReader<LateEvent> reader = readUpToTheHold(source, 40);
    reader.getCheckpointMark().finalizeCheckpoint(); // a checkpoint covers the 40 events
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> standStill(reader));
    assertThat(
        e.getMessage(),
        equalTo(
            "LateEventSource fault drill '"
                + id
                + "' stood still for PT0.200S before event 40, waiting for the job to restart"
                + " from a checkpoint; its last completed checkpoint covers 40 events, and no"
                + " worker failed (kill the worker that runs the job while the stream stands"
                + " still)"));
  }

  private static UnboundedSource.UnboundedReader<LateEvent> readUpToTheHold(
      LateEventSource source, int hold) throws Exception {
    UnboundedSource.UnboundedReader<LateEvent> reader =
        source.createReader(PipelineOptionsFactory.create(), null);
    assertTrue(reader.start());
    for (int read = 1; read < hold; read++) {
      assertTrue(reader.advance(), "event " + read);
    }
    return reader;
  }

  /** Advances a held reader until it fails; a minute without failing fails the test. */
  private static void standStill(UnboundedSource.UnboundedReader<LateEvent> reader)
      throws Exception {
    long start = System.nanoTime();
    while (System.nanoTime() - start < TimeUnit.MINUTES.toNanos(1)) {
      assertFalse(reader.advance(), "the hold lets no event through");
      Thread.sleep(10);
    }
  }
}
