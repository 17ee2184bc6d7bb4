package dev.eventide.pipelines.trends;

import dev.eventide.pipelines.EmittedCount;
import dev.eventide.trends.Event;
import dev.eventide.trends.beam.EventCoder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Instant;

/**
 * A list of events in time order read as a stream: an unbounded source whose watermark follows the
 * events it has read, so that windows fire while the rest is still being read, as they would on a
 * live stream — where {@link EventList}'s bounded input holds the watermark at the start of time
 * until everything is read, and every event waits in state until then. The events go in as encoded
 * shards of consecutive events; the source splits them round-robin, so that its readers move
 * through time together (the watermark is their slowest); each ends, its watermark at the end of
 * time, after its last shard.
 */
final class EventStream extends UnboundedSource<Event, EmittedCount> {
  private static final long serialVersionUID = 1L;
  private static final int EVENTS_PER_SHARD = 5_000;
  private static final ListCoder<Event> SHARD = ListCoder.of(EventCoder.of());
  private static final long MIN = BoundedWindow.TIMESTAMP_MIN_VALUE.getMillis();
  private static final long MAX = GlobalWindow.INSTANCE.maxTimestamp().getMillis();

  private final List<byte[]> shards;

  private EventStream(List<byte[]> shards) {
    this.shards = shards;
  }

  /**
   * The events, which must be in non-decreasing time order, as a stream.
   *
   * @throws IllegalArgumentException if an event is earlier than the one before it
   */
  static PTransform<PBegin, PCollection<Event>> of(List<Event> events) {
    for (int i = 1; i < events.size(); i++) {
      if (events.get(i).time() < events.get(i - 1).time()) {
        throw new IllegalArgumentException(
            "a stream's events must be in time order, but event "
                + i
                + " at "
                + events.get(i).time()
                + " follows one at "
                + events.get(i - 1).time());
      }
    }
    List<byte[]> shards = new ArrayList<>();
    for (int from = 0; from < events.size(); from += EVENTS_PER_SHARD) {
      List<Event> shard = events.subList(from, Math.min(events.size(), from + EVENTS_PER_SHARD));
      try {
        shards.add(CoderUtils.encodeToByteArray(SHARD, new ArrayList<>(shard)));
      } catch (IOException e) {
        throw new UncheckedIOException("could not encode the events", e);
      }
    }
    return Read.from(new EventStream(List.copyOf(shards)));
  }

  /** Splits the shards round-robin: reader r reads shards r, r + n, r + 2n, … */
  @Override
  public List<EventStream> split(int desiredNumSplits, PipelineOptions options) {
    int n = Math.max(1, Math.min(desiredNumSplits, shards.size()));
    List<EventStream> splits = new ArrayList<>(n);
    for (int r = 0; r < n; r++) {
      List<byte[]> mine = new ArrayList<>();
      for (int s = r; s < shards.size(); s += n) {
        mine.add(shards.get(s));
      }
      splits.add(new EventStream(List.copyOf(mine)));
    }
    return splits;
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
    builder.add(DisplayData.item("shards", shards.size()).withLabel("Shards of events"));
  }

  private static final class Reader extends UnboundedReader<Event> {
    private final EventStream source;
    private int shard;
    private List<Event> events = List.of();
    private int next;
    private long consumed;
    private Event current;
    private boolean exhausted;

    Reader(EventStream source, long skip) {
      this.source = source;
      while (consumed < skip && advance()) {
        // a restored reader goes on after the events it had emitted
      }
    }

    @Override
    public boolean start() {
      return advance();
    }

    @Override
    public boolean advance() {
      while (next >= events.size()) {
        if (shard >= source.shards.size()) {
          exhausted = true;
          current = null;
          return false;
        }
        try {
          events = CoderUtils.decodeFromByteArray(SHARD, source.shards.get(shard++));
        } catch (IOException e) {
          throw new UncheckedIOException("could not decode shard " + (shard - 1), e);
        }
        next = 0;
      }
      current = events.get(next++);
      consumed++;
      return true;
    }

    @Override
    public Event getCurrent() {
      if (current == null) {
        throw new NoSuchElementException("no current event");
      }
      return current;
    }

    /**
     * The event's time; one beyond Beam's timestamps goes in at the nearest one (TrendAggregate
     * judges it by its own time and sets it aside as a dead letter).
     */
    @Override
    public Instant getCurrentTimestamp() {
      return new Instant(Math.max(MIN, Math.min(MAX, getCurrent().time())));
    }

    @Override
    public Instant getWatermark() {
      if (exhausted) {
        return BoundedWindow.TIMESTAMP_MAX_VALUE;
      }
      return current == null ? BoundedWindow.TIMESTAMP_MIN_VALUE : getCurrentTimestamp();
    }

    @Override
    public EmittedCount getCheckpointMark() {
      return new EmittedCount(consumed);
    }

    @Override
    public EventStream getCurrentSource() {
      return source;
    }

    @Override
    public void close() {}
  }
}
