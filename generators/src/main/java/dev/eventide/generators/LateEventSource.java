package dev.eventide.generators;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CustomCoder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Reads a {@link LateEventGenerator} stream as an unbounded Beam source whose watermark is the
 * generator's periodic watermark, and which ends (watermark at the end of time) after the last
 * event. It runs on every runner, including a Flink cluster, and restores from a checkpoint by
 * regenerating the stream up to the checkpointed position.
 *
 * <pre>{@code
 * PCollection<LateEvent> events = p.apply(LateEventSource.read(LateEventGenerator.builder().build()));
 * }</pre>
 *
 * <p>The stream is sequential by construction, so the source never splits.
 */
public final class LateEventSource extends UnboundedSource<LateEvent, LateEventSource.Position> {
  private static final long serialVersionUID = 1L;

  /**
   * How long a held or stalled reader stands still before it fails the job with a message that says
   * what it waited for: a checkpoint that never completes, or a restart that never comes.
   */
  public static final Duration HOLD_LIMIT = Duration.standardMinutes(10);

  /** Per hold id, the most events a finalized checkpoint of such a source covered (one JVM). */
  private static final Map<String, Long> FINALIZED = new ConcurrentHashMap<>();

  private final LateEventGenerator generator;
  private final Duration pause;
  private final @Nullable String holdId;
  private final long holdAt;
  private final boolean stallUntilRestored;
  private final Duration holdLimit;
  // Where the watermark stays after the last event of a source that stays open; null: it ends.
  private final @Nullable Instant openAt;

  private LateEventSource(
      LateEventGenerator generator,
      Duration pause,
      @Nullable String holdId,
      long holdAt,
      boolean stallUntilRestored) {
    this(generator, pause, holdId, holdAt, stallUntilRestored, HOLD_LIMIT, null);
  }

  private LateEventSource(
      LateEventGenerator generator,
      Duration pause,
      @Nullable String holdId,
      long holdAt,
      boolean stallUntilRestored,
      Duration holdLimit,
      @Nullable Instant openAt) {
    this.generator = generator;
    this.pause = pause;
    this.holdId = holdId;
    this.holdAt = holdAt;
    this.stallUntilRestored = stallUntilRestored;
    this.holdLimit = holdLimit;
    this.openAt = openAt;
  }

  /** This source with its hold failing after {@code limit} instead of {@link #HOLD_LIMIT}. */
  LateEventSource withHoldLimit(Duration limit) {
    return new LateEventSource(generator, pause, holdId, holdAt, stallUntilRestored, limit, openAt);
  }

  /** Returns a source of the events of {@code generator}. */
  public static LateEventSource of(LateEventGenerator generator) {
    return new LateEventSource(generator, Duration.ZERO, null, -1, false);
  }

  /**
   * Returns a transform that reads the events of {@code generator} and holds before event {@code
   * index} (0-based) until the runner has completed a checkpoint that covers every event before it,
   * so that a failure injected at that event restores from a checkpoint taken mid-run, however slow
   * the machine. {@code holdId} names the hold (unique per test run); the runner must finalize
   * checkpoints in this JVM (embedded Flink with checkpointing on). A hold that lasts {@link
   * #HOLD_LIMIT} fails the job with a message that says so.
   */
  public static Read.Unbounded<LateEvent> heldUntilCheckpoint(
      LateEventGenerator generator, String holdId, long index) {
    checkHold(generator, index);
    return Read.from(new LateEventSource(generator, Duration.ZERO, holdId, index, false));
  }

  /**
   * Returns a transform for a fault drill: it reads the events of {@code generator} and stops
   * before event {@code index} (0-based), once a checkpoint covering every event before it has
   * completed, until the job restarts from a checkpoint; a restored reader reads on to the end.
   * Kill the worker that runs the job while it stands still, and the job can only end by recovering
   * from that checkpoint. Without a failure the stream stands still until {@link #HOLD_LIMIT} and
   * then fails the job, saying what it waited for. {@code holdId} names the drill (unique per job);
   * the runner must checkpoint.
   */
  public static Read.Unbounded<LateEvent> stalledUntilRestored(
      LateEventGenerator generator, String holdId, long index) {
    checkHold(generator, index);
    return Read.from(new LateEventSource(generator, Duration.ZERO, holdId, index, true));
  }

  private static void checkHold(LateEventGenerator generator, long index) {
    if (index < 0 || index >= generator.events()) {
      throw new IllegalArgumentException(
          "the hold must be at one of the " + generator.events() + " events, but was " + index);
    }
  }

  /** Returns a transform that reads the events of {@code generator}. */
  public static Read.Unbounded<LateEvent> read(LateEventGenerator generator) {
    return Read.from(of(generator));
  }

  /**
   * Returns a transform that reads the events of {@code generator} and then, instead of ending,
   * stays open with its watermark at {@code watermark} until the job is cancelled: the job goes on
   * running once its watermark has passed every event, so that what it still holds then (its
   * checkpoints, its gauges) can be read, which the end of the input would clear. {@code watermark}
   * must not be before the generator's last watermark.
   */
  public static Read.Unbounded<LateEvent> openAfterEnd(
      LateEventGenerator generator, Instant watermark) {
    Instant last = generator.watermarkAt(generator.arrivalTime(generator.events() - 1));
    if (watermark.isBefore(last) || !watermark.isBefore(BoundedWindow.TIMESTAMP_MAX_VALUE)) {
      throw new IllegalArgumentException(
          "the watermark after the end must be at or after the stream's last watermark "
              + last
              + " and before the end of time, but was "
              + watermark);
    }
    return Read.from(
        new LateEventSource(generator, Duration.ZERO, null, -1, false, HOLD_LIMIT, watermark));
  }

  /**
   * Returns a transform that reads the same events and watermarks as {@link #read}, through a
   * source that emits the events arriving under one watermark in batches of up to {@code maxBatch},
   * flattened at once. Runners that cut bundles by source elements (the DirectRunner reads ten per
   * bundle) then carry many events per bundle: on the DirectRunner, where every bundle costs a pass
   * over the pipeline's graph, that makes large pipelines several times faster. A runner's
   * watermark moves only between batches, as it does between events.
   */
  public static PTransform<PBegin, PCollection<LateEvent>> readInBatches(
      LateEventGenerator generator, int maxBatch) {
    LateEventBatchSource source = new LateEventBatchSource(generator, maxBatch);
    return new PTransform<>() {
      @Override
      public PCollection<LateEvent> expand(PBegin begin) {
        return begin
            .apply("ReadBatches", Read.from(source))
            .apply("Events", ParDo.of(new Flatten()))
            .setCoder(LateEvent.EventCoder.of());
      }
    };
  }

  /** Each event of a batch, at its own event time (never before the batch's timestamp). */
  private static final class Flatten extends DoFn<List<LateEvent>, LateEvent> {
    @ProcessElement
    public void process(@Element List<LateEvent> batch, OutputReceiver<LateEvent> out) {
      for (LateEvent e : batch) {
        out.outputWithTimestamp(e, e.eventTime());
      }
    }
  }

  /**
   * Returns a transform that reads the events of {@code generator}, pausing for {@code pause} (of
   * processing time) each time the watermark moves, with the new watermark already reported. A
   * runner that polls the watermark periodically (Flink) then sees every watermark before the
   * events that arrive under it, so events meant to be late are late, as with a {@code TestStream}
   * on the DirectRunner.
   */
  public static Read.Unbounded<LateEvent> paced(LateEventGenerator generator, Duration pause) {
    if (pause.isShorterThan(Duration.ZERO)) {
      throw new IllegalArgumentException("pause must be >= 0, but was " + pause);
    }
    return Read.from(new LateEventSource(generator, pause, null, -1, false));
  }

  public LateEventGenerator generator() {
    return generator;
  }

  @Override
  public List<LateEventSource> split(int desiredNumSplits, PipelineOptions options) {
    return List.of(this);
  }

  @Override
  public UnboundedReader<LateEvent> createReader(PipelineOptions options, Position checkpoint) {
    return checkpoint == null
        ? new Reader(this, 0, false)
        : new Reader(this, checkpoint.consumed, true);
  }

  @Override
  public Coder<Position> getCheckpointMarkCoder() {
    return PositionCoder.INSTANCE;
  }

  @Override
  public Coder<LateEvent> getOutputCoder() {
    return LateEvent.EventCoder.of();
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    LateEventGenerator g = generator;
    builder
        .add(DisplayData.item("events", g.events()))
        .add(DisplayData.item("window", g.window()))
        .add(DisplayData.item("eventsPerWindow", g.eventsPerWindow()))
        .add(DisplayData.item("lateFraction", g.lateFraction()))
        .add(DisplayData.item("lateness", g.lateness().toString()))
        .add(DisplayData.item("watermarkPeriod", g.watermarkPeriod()))
        .add(DisplayData.item("keys", g.keys()))
        .add(DisplayData.item("seed", g.seed()))
        .add(DisplayData.item("pause", pause))
        .addIfNotNull(DisplayData.item("holdId", holdId))
        .addIfNotDefault(DisplayData.item("holdAt", holdAt), -1L)
        .addIfNotNull(DisplayData.item("openAt", openAt))
        .addIfNotDefault(DisplayData.item("stallUntilRestored", stallUntilRestored), false);
  }

  /**
   * How many events a reader had emitted; the stream is regenerated on restore, so finalizing only
   * records, for a held source, how far completed checkpoints reach.
   */
  public static final class Position implements UnboundedSource.CheckpointMark {
    private final long consumed;
    private final @Nullable String holdId;

    Position(long consumed, @Nullable String holdId) {
      this.consumed = consumed;
      this.holdId = holdId;
    }

    public long consumed() {
      return consumed;
    }

    @Override
    public void finalizeCheckpoint() {
      if (holdId != null) {
        FINALIZED.merge(holdId, consumed, Math::max);
      }
    }
  }

  static final class PositionCoder extends CustomCoder<Position> {
    static final PositionCoder INSTANCE = new PositionCoder();
    private static final Coder<String> ID = NullableCoder.of(StringUtf8Coder.of());

    @Override
    public void encode(Position value, OutputStream out) throws IOException {
      VarLongCoder.of().encode(value.consumed, out);
      ID.encode(value.holdId, out);
    }

    @Override
    public Position decode(InputStream in) throws IOException {
      return new Position(VarLongCoder.of().decode(in), ID.decode(in));
    }
  }

  private static final class Reader extends UnboundedReader<LateEvent> {
    private final LateEventSource source;
    private final Iterator<LateEvent> events;
    private final boolean restored;
    private long consumed;
    private LateEvent current;
    private LateEvent next; // read ahead while pausing
    private long pauseEndNanos = -1;
    private long holdingSinceNanos = -1;
    private boolean exhausted;

    Reader(LateEventSource source, long consumed, boolean restored) {
      this.source = source;
      this.restored = restored;
      this.events = source.generator.iterator();
      for (long i = 0; i < consumed; i++) {
        events.next();
      }
      this.consumed = consumed;
    }

    @Override
    public boolean start() {
      return advance();
    }

    @Override
    public boolean advance() {
      if (next == null) {
        if (!events.hasNext()) {
          current = null;
          exhausted = true;
          return false;
        }
        next = events.next();
      }
      if (consumed == source.holdAt) {
        long covered = FINALIZED.getOrDefault(source.holdId, -1L);
        if (covered < source.holdAt || (source.stallUntilRestored && !restored)) {
          holdOrFail(covered);
          return false; // until a checkpoint covers every event before the hold (and a restore)
        }
      }
      if (source.pause.getMillis() > 0
          && current != null
          && next.watermark().isAfter(current.watermark())) {
        long now = System.nanoTime();
        if (pauseEndNanos < 0) {
          pauseEndNanos = now + source.pause.getMillis() * 1_000_000;
        }
        if (now < pauseEndNanos) {
          return false;
        }
        pauseEndNanos = -1;
      }
      current = next;
      next = null;
      consumed++;
      return true;
    }

    private void holdOrFail(long covered) {
      long now = System.nanoTime();
      if (holdingSinceNanos < 0) {
        holdingSinceNanos = now;
        return;
      }
      if (now - holdingSinceNanos <= source.holdLimit.getMillis() * 1_000_000) {
        return;
      }
      String coveredText =
          covered < 0
              ? "no checkpoint of it has completed"
              : "its last completed checkpoint covers " + covered + " events";
      throw new IllegalStateException(
          covered < source.holdAt
              ? String.format(
                  "LateEventSource hold '%s' stood still for %s before event %d, waiting for a"
                      + " checkpoint that covers the events before it; %s (is checkpointing on,"
                      + " in this JVM?)",
                  source.holdId, source.holdLimit, source.holdAt, coveredText)
              : String.format(
                  "LateEventSource fault drill '%s' stood still for %s before event %d, waiting"
                      + " for the job to restart from a checkpoint; %s, and no worker failed"
                      + " (kill the worker that runs the job while the stream stands still)",
                  source.holdId, source.holdLimit, source.holdAt, coveredText));
    }

    @Override
    public LateEvent getCurrent() {
      if (current == null) {
        throw new NoSuchElementException("no current event");
      }
      return current;
    }

    @Override
    public Instant getCurrentTimestamp() {
      return getCurrent().eventTime();
    }

    @Override
    public Instant getWatermark() {
      // Only after a read past the last event, so the last event is never behind the watermark
      // at the end of time.
      if (exhausted) {
        return source.openAt == null ? BoundedWindow.TIMESTAMP_MAX_VALUE : source.openAt;
      }
      if (pauseEndNanos >= 0) {
        return next.watermark(); // pausing so that this watermark goes out first
      }
      LateEventGenerator g = source.generator;
      return consumed == 0
          ? BoundedWindow.TIMESTAMP_MIN_VALUE
          : g.watermarkAt(g.arrivalTime(consumed - 1));
    }

    @Override
    public Position getCheckpointMark() {
      return new Position(consumed, source.holdId);
    }

    @Override
    public LateEventSource getCurrentSource() {
      return source;
    }

    @Override
    public void close() {}
  }
}
