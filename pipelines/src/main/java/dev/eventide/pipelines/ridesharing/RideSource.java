package dev.eventide.pipelines.ridesharing;

import dev.eventide.pipelines.EmittedCount;
import dev.eventide.trends.Event;
import dev.eventide.trends.beam.EventCoder;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.joda.time.Instant;

/**
 * Reads a {@link RideStream} as an unbounded source: events in arrival order, timestamped at their
 * event time, under the stream's watermark; it ends (watermark at the end of time) after the last
 * event, and restores from a checkpoint by regenerating the stream up to the checkpointed position.
 * How many events arrive behind the watermark depends on how often the runner polls it.
 */
final class RideSource extends UnboundedSource<Event, EmittedCount> {
  private static final long serialVersionUID = 1L;

  private final RideStream stream;

  RideSource(RideStream stream) {
    this.stream = stream;
  }

  @Override
  public List<RideSource> split(int desiredNumSplits, PipelineOptions options) {
    return List.of(this);
  }

  @Override
  public UnboundedReader<Event> createReader(PipelineOptions options, EmittedCount checkpoint) {
    return new Reader(this, checkpoint == null ? 0 : checkpoint.emitted());
  }

  @Override
  public Coder<EmittedCount> getCheckpointMarkCoder() {
    return EmittedCount.coder();
  }

  @Override
  public Coder<Event> getOutputCoder() {
    return EventCoder.of();
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    builder
        .add(DisplayData.item("events", stream.events()))
        .add(DisplayData.item("districts", stream.districts()))
        .add(DisplayData.item("drivers", stream.drivers()))
        .add(DisplayData.item("lateFraction", stream.lateFraction()))
        .add(DisplayData.item("maxDelayMillis", stream.maxDelayMillis()))
        .add(DisplayData.item("seed", stream.seed()));
  }

  private static final class Reader extends UnboundedReader<Event> {
    private final RideSource source;
    private final List<RideStream.Arrival> arrivals;
    private int consumed;
    private boolean exhausted;

    Reader(RideSource source, long consumed) {
      this.source = source;
      this.arrivals = source.stream.arrivals();
      this.consumed = (int) consumed;
    }

    @Override
    public boolean start() {
      return advance();
    }

    @Override
    public boolean advance() {
      if (consumed >= arrivals.size()) {
        exhausted = true;
        return false;
      }
      consumed++;
      return true;
    }

    private RideStream.Arrival current() {
      if (consumed == 0 || exhausted) {
        throw new NoSuchElementException("no current event");
      }
      return arrivals.get(consumed - 1);
    }

    @Override
    public Event getCurrent() {
      return current().event();
    }

    @Override
    public Instant getCurrentTimestamp() {
      return new Instant(current().event().time());
    }

    @Override
    public Instant getWatermark() {
      if (exhausted) {
        return BoundedWindow.TIMESTAMP_MAX_VALUE;
      }
      return consumed == 0
          ? BoundedWindow.TIMESTAMP_MIN_VALUE
          : new Instant(arrivals.get(consumed - 1).watermark());
    }

    @Override
    public EmittedCount getCheckpointMark() {
      return new EmittedCount(consumed);
    }

    @Override
    public RideSource getCurrentSource() {
      return source;
    }

    @Override
    public void close() {}
  }
}
