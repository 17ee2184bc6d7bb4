package dev.eventide.generators;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * A {@link LateEventGenerator} stream in batches: consecutive events that arrive under the same
 * watermark, up to {@link #maxBatch} of them, timestamped with the earliest event time among them.
 * Read through {@link LateEventSource#readInBatches}, which flattens them again.
 */
final class LateEventBatchSource
    extends UnboundedSource<List<LateEvent>, LateEventSource.Position> {
  private static final long serialVersionUID = 1L;

  private final LateEventGenerator generator;
  private final int maxBatch;

  LateEventBatchSource(LateEventGenerator generator, int maxBatch) {
    if (maxBatch < 1) {
      throw new IllegalArgumentException("maxBatch must be >= 1, but was " + maxBatch);
    }
    this.generator = generator;
    this.maxBatch = maxBatch;
  }

  @Override
  public List<LateEventBatchSource> split(int desiredNumSplits, PipelineOptions options) {
    return List.of(this);
  }

  @Override
  public UnboundedReader<List<LateEvent>> createReader(
      PipelineOptions options, LateEventSource.@Nullable Position checkpoint) {
    return new Reader(this, checkpoint == null ? 0 : checkpoint.consumed());
  }

  @Override
  public Coder<LateEventSource.Position> getCheckpointMarkCoder() {
    return LateEventSource.PositionCoder.INSTANCE;
  }

  @Override
  public Coder<List<LateEvent>> getOutputCoder() {
    return ListCoder.of(LateEvent.EventCoder.of());
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    builder
        .add(DisplayData.item("events", generator.events()))
        .add(DisplayData.item("window", generator.window()))
        .add(DisplayData.item("eventsPerWindow", generator.eventsPerWindow()))
        .add(DisplayData.item("lateness", generator.lateness().toString()))
        .add(DisplayData.item("seed", generator.seed()))
        .add(DisplayData.item("maxBatch", maxBatch));
  }

  private static final class Reader extends UnboundedReader<List<LateEvent>> {
    private final LateEventBatchSource source;
    private final Iterator<LateEvent> events;
    private long consumed;
    private @Nullable LateEvent next; // read ahead: the first event of the next batch
    private @Nullable List<LateEvent> current;
    private Instant watermark = BoundedWindow.TIMESTAMP_MIN_VALUE;
    private boolean exhausted;

    Reader(LateEventBatchSource source, long consumed) {
      this.source = source;
      this.events = source.generator.iterator();
      for (long i = 0; i < consumed; i++) {
        events.next();
      }
      this.consumed = consumed;
      if (consumed > 0) {
        LateEventGenerator g = source.generator;
        watermark = g.watermarkAt(g.arrivalTime(consumed - 1));
      }
    }

    @Override
    public boolean start() {
      return advance();
    }

    @Override
    public boolean advance() {
      if (next == null && events.hasNext()) {
        next = events.next();
      }
      if (next == null) {
        current = null;
        exhausted = true;
        return false;
      }
      List<LateEvent> batch = new ArrayList<>();
      Instant arrivedUnder = next.watermark();
      while (next != null
          && next.watermark().equals(arrivedUnder)
          && batch.size() < source.maxBatch) {
        batch.add(next);
        next = events.hasNext() ? events.next() : null;
      }
      current = batch;
      consumed += batch.size();
      watermark = arrivedUnder;
      return true;
    }

    @Override
    public List<LateEvent> getCurrent() {
      if (current == null) {
        throw new NoSuchElementException("no current batch");
      }
      return current;
    }

    @Override
    public Instant getCurrentTimestamp() {
      Instant earliest = BoundedWindow.TIMESTAMP_MAX_VALUE;
      for (LateEvent e : getCurrent()) {
        if (e.eventTime().isBefore(earliest)) {
          earliest = e.eventTime();
        }
      }
      return earliest;
    }

    @Override
    public Instant getWatermark() {
      // The end of time only after a read past the last event, as LateEventSource does.
      return exhausted ? BoundedWindow.TIMESTAMP_MAX_VALUE : watermark;
    }

    @Override
    public LateEventSource.Position getCheckpointMark() {
      return new LateEventSource.Position(consumed, null);
    }

    @Override
    public LateEventBatchSource getCurrentSource() {
      return source;
    }

    @Override
    public void close() {}
  }
}
