package dev.eventide.testing.streams;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CustomCoder;
import org.apache.beam.sdk.coders.InstantCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.io.UnboundedSource;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Replays an event-time scenario (elements and watermark advances, in order) from an unbounded
 * source that, at each watermark advance, waits until the new watermark has reached the source's
 * consumers before it emits anything more. Events meant to be late are then late on a runner whose
 * {@code TestStream} may let elements overtake watermarks (Flink), however loaded the machine is:
 * no wall-clock pause decides it.
 *
 * <pre>{@code
 * PCollection<Integer> in = p.apply(GatedReplay.builder(VarIntCoder.of())
 *     .add(1, t(5)).advanceWatermarkTo(t(20)).add(2, t(3))   // 2 is late for [0, 10)
 *     .build());
 * }</pre>
 *
 * <p>How: at an advance to W the source emits a marker that a stateful probe (keyed by a constant,
 * in the global window) takes, reports W as its watermark, and reads nothing more until the probe's
 * event-time timer has seen its input watermark reach W. The probe reads the same operator output
 * as the consumers, and a runner passes a watermark to all of an operator's consumers before any
 * element emitted after it, so every consumer sees W before the elements that follow it. That holds
 * along one channel only: a step with two inputs (a {@code CoGroupByKey}) takes the minimum of
 * their watermarks and can read an element on one before the watermark on the other. For such
 * transforms, {@link #probed} adds a probe on the transform's output, and the gate waits for every
 * probe. The probes tell the source through memory of this JVM: the DirectRunner and embedded Flink
 * (tested with parallelism 1). On a runner in other processes the gate never opens, and the source
 * fails after {@link #MAX_WAIT} (or {@link Builder#maxWait}) instead of hanging, naming the
 * watermark it waited for and the last one its probes saw. On Flink it sets bundles of one element
 * for the pipeline: Flink's Beam operators hold their output watermark while a bundle is open.
 */
public final class GatedReplay<T> extends PTransform<PBegin, PCollection<T>> {
  /** How long the source waits for one watermark to be observed before it fails. */
  public static final Duration MAX_WAIT = Duration.standardMinutes(2);

  // Per gate, the watermark each of its probes has seen.
  private static final ConcurrentMap<String, ConcurrentMap<Integer, AtomicLong>> PROBES =
      new ConcurrentHashMap<>();
  // Per gate, the most steps a completed checkpoint of the source holds.
  private static final ConcurrentMap<String, AtomicLong> CHECKPOINTED = new ConcurrentHashMap<>();

  private final Coder<T> coder;
  private final List<Step> steps;
  private final Duration maxWait;
  // One gate per replay; the id travels with the serialized source and probes.
  private final String gate = UUID.randomUUID().toString();
  private transient PCollection<KV<Integer, Instant>> markers;

  private GatedReplay(Coder<T> coder, List<Step> steps, Duration maxWait) {
    this.coder = coder;
    this.steps = steps;
    this.maxWait = maxWait;
  }

  /**
   * Returns {@code transform} with a probe on its output that this replay's gate also waits for: an
   * advance then has to have passed through every step of the transform (its output watermark
   * reached the new watermark) before the replay goes on. Use it where the transform has several
   * paths from the replay to a step that judges lateness (a join of two branches: a step that reads
   * two inputs takes the minimum of their watermarks, and one can lag), and apply it after the
   * replay.
   */
  public <OutputT> PTransform<PCollection<T>, PCollection<OutputT>> probed(
      PTransform<PCollection<T>, PCollection<OutputT>> transform) {
    GatedReplay<T> replay = this;
    return new PTransform<>() {
      @Override
      public PCollection<OutputT> expand(PCollection<T> input) {
        if (replay.markers == null) {
          throw new IllegalStateException("apply the GatedReplay before a transform it probes");
        }
        PCollection<OutputT> output = input.apply("Probed", transform);
        PCollection<KV<Integer, Instant>> passed =
            output
                .apply("WatermarkOnly", ParDo.of(new DropAllFn<OutputT>()))
                .setCoder(markerCoder())
                .apply("GlobalWindow", Window.<KV<Integer, Instant>>into(new GlobalWindows()));
        PCollectionList.of(replay.markers)
            .and(passed)
            .apply("MarkersAndOutputWatermark", Flatten.pCollections())
            .apply("OutputProbe", ParDo.of(new ProbeFn(gate, replay.register())));
        return output;
      }
    };
  }

  private int register() {
    ConcurrentMap<Integer, AtomicLong> probes =
        PROBES.computeIfAbsent(gate, g -> new ConcurrentHashMap<>());
    int probe = probes.size();
    probes.put(probe, new AtomicLong(Long.MIN_VALUE));
    return probe;
  }

  private static KvCoder<Integer, Instant> markerCoder() {
    return KvCoder.of(VarIntCoder.of(), InstantCoder.of());
  }

  /** Returns an empty scenario of elements encoded with {@code coder}. */
  public static <T> Builder<T> builder(Coder<T> coder) {
    return new Builder<>(coder);
  }

  /** Builds a scenario step by step; the stream ends with the watermark at the end of time. */
  public static final class Builder<T> {
    private final Coder<T> coder;
    private final List<Step> steps = new ArrayList<>();
    private Instant watermark = BoundedWindow.TIMESTAMP_MIN_VALUE;
    private Duration maxWait = MAX_WAIT;

    private Builder(Coder<T> coder) {
      this.coder = coder;
    }

    /**
     * Adds an element at {@code timestamp} (behind the watermark if the scenario wants it late).
     */
    public Builder<T> add(T value, Instant timestamp) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try {
        coder.encode(value, bytes);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot encode " + value + " with " + coder, e);
      }
      steps.add(new Step(bytes.toByteArray(), timestamp.getMillis()));
      return this;
    }

    /**
     * Advances the watermark.
     *
     * @throws IllegalArgumentException if {@code newWatermark} is not after the current one or not
     *     before the end of the global window
     */
    public Builder<T> advanceWatermarkTo(Instant newWatermark) {
      if (!newWatermark.isAfter(watermark)
          || !newWatermark.isBefore(GlobalWindow.INSTANCE.maxTimestamp())) {
        throw new IllegalArgumentException(
            String.format(
                "the watermark moves forward and stays before the end of the global window: %s"
                    + " after %s",
                newWatermark, watermark));
      }
      watermark = newWatermark;
      steps.add(new Step(null, newWatermark.getMillis()));
      return this;
    }

    /**
     * Holds the stream here, open and with its watermark where the steps before left it, until
     * {@code released} says so (polled on the reader's thread): a test can look at a pipeline while
     * its input goes on (its metrics, with a runner that does not block on run), then let it end.
     * The source fails after {@link #maxWait} if it is never released, naming {@code what} it
     * waited for.
     */
    public Builder<T> holdUntil(String what, Condition released) {
      steps.add(new Step(null, watermark.getMillis(), what, released));
      return this;
    }

    /**
     * Holds the stream here until a checkpoint that holds every step before this one has completed
     * (the runner finalized the source's checkpoint mark): a job restored after a failure that
     * follows resumes after this point, replaying the steps after it. For embedded Flink with
     * checkpoints; the source fails after {@link #maxWait} if no checkpoint completes.
     */
    public Builder<T> holdUntilCheckpointed() {
      steps.add(Step.checkpoint(watermark.getMillis()));
      return this;
    }

    /**
     * Sets how long the source waits for one watermark advance to be observed before it fails
     * ({@link #MAX_WAIT} unless set).
     *
     * @throws IllegalArgumentException if {@code limit} is not positive
     */
    public Builder<T> maxWait(Duration limit) {
      if (!limit.isLongerThan(Duration.ZERO)) {
        throw new IllegalArgumentException("maxWait must be > 0, but was " + limit);
      }
      maxWait = limit;
      return this;
    }

    /** Returns the replay, a transform to apply to the pipeline. */
    public GatedReplay<T> build() {
      return new GatedReplay<>(coder, List.copyOf(steps), maxWait);
    }
  }

  @Override
  public PCollection<T> expand(PBegin input) {
    if (markers != null) {
      throw new IllegalStateException("a GatedReplay is applied once; build another");
    }
    PipelineOptions options = input.getPipeline().getOptions();
    if (options.getRunner().getName().startsWith("org.apache.beam.runners.flink.")) {
      // Beam's Flink DoFnOperator does not emit an operator's output watermark while a bundle is
      // open (DoFnOperator#maybeEmitWatermark returns, and emits it once the bundle finishes): a
      // step between the replay and a consumer would pass on the elements after an advance before
      // the watermark its probe saw. A bundle of one element closes at once.
      options.as(FlinkPipelineOptions.class).setMaxBundleSize(1L);
    }
    TupleTag<T> elements = new TupleTag<>() {};
    TupleTag<KV<Integer, Instant>> markerTag = new TupleTag<>() {};
    PCollectionTuple split =
        input
            .apply("Read", Read.from(new ReplaySource<>(coder, steps, gate, maxWait.getMillis())))
            .apply(
                "Split",
                ParDo.of(new SplitFn<T>(elements, markerTag))
                    .withOutputTags(elements, TupleTagList.of(markerTag)));
    this.markers = split.get(markerTag).setCoder(markerCoder());
    this.markers.apply("WatermarkProbe", ParDo.of(new ProbeFn(gate, register())));
    return split.get(elements).setCoder(coder);
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    builder.add(DisplayData.item("steps", steps.size()));
  }

  /**
   * The replay's source with a probe registered that never reports: a reader of it waits at the
   * first watermark advance until {@code maxWait} runs out (for the test of that wait).
   */
  UnboundedSource<KV<Instant, T>, ?> unobservedSource() {
    register();
    return new ReplaySource<>(coder, steps, gate, maxWait.getMillis());
  }

  /** The watermark every probe of {@code gate} has seen. */
  private static long observed(String gate) {
    long least = Long.MAX_VALUE;
    for (AtomicLong probe : PROBES.getOrDefault(gate, new ConcurrentHashMap<>()).values()) {
      least = Math.min(least, probe.get());
    }
    return least;
  }

  /** Passes its input's watermark on, and nothing else. */
  private static final class DropAllFn<T> extends DoFn<T, KV<Integer, Instant>> {
    @ProcessElement
    public void process() {}
  }

  /** What a {@link Builder#holdUntil} hold waits for; serializable, and read in this JVM. */
  @FunctionalInterface
  public interface Condition extends java.io.Serializable {
    boolean holds();
  }

  /**
   * An element (its encoding and timestamp), a watermark advance (no encoding) or a hold (a
   * condition, at the watermark before it).
   */
  private static final class Step implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    final byte[] element;
    final long millis;
    final String what;
    final Condition released;
    final boolean checkpoint;

    Step(byte[] element, long millis) {
      this(element, millis, null, null);
    }

    Step(byte[] element, long millis, String what, Condition released) {
      this(element, millis, what, released, false);
    }

    private Step(byte[] element, long millis, String what, Condition released, boolean checkpoint) {
      this.element = element;
      this.millis = millis;
      this.what = what;
      this.released = released;
      this.checkpoint = checkpoint;
    }

    static Step checkpoint(long millis) {
      return new Step(null, millis, "a completed checkpoint of the steps before", null, true);
    }

    boolean isHold() {
      return released != null || checkpoint;
    }

    boolean isWatermark() {
      return element == null && !isHold();
    }
  }

  /** Source output: an element (null key) or the marker of an advance to the key. */
  private static final class SplitFn<T> extends DoFn<KV<Instant, T>, T> {
    private final TupleTag<T> elements;
    private final TupleTag<KV<Integer, Instant>> markers;

    SplitFn(TupleTag<T> elements, TupleTag<KV<Integer, Instant>> markers) {
      this.elements = elements;
      this.markers = markers;
    }

    @ProcessElement
    public void process(@Element KV<Instant, T> item, MultiOutputReceiver out) {
      if (item.getKey() == null) {
        out.get(elements).output(item.getValue());
      } else {
        out.get(markers).output(KV.of(0, item.getKey()));
      }
    }
  }

  /** Tells the source, through its gate, how far the watermark has come. */
  private static final class ProbeFn extends DoFn<KV<Integer, Instant>, Void> {
    private static final String TARGET = "target";
    private static final String SEEN = "seen";

    @StateId(TARGET)
    private final StateSpec<ValueState<Instant>> targetSpec = StateSpecs.value(InstantCoder.of());

    @TimerId(SEEN)
    private final TimerSpec seenSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    private final String gate;
    private final int probe;

    ProbeFn(String gate, int probe) {
      this.gate = gate;
      this.probe = probe;
    }

    @ProcessElement
    public void process(
        @Element KV<Integer, Instant> marker,
        @StateId(TARGET) ValueState<Instant> target,
        @TimerId(SEEN) Timer seen) {
      target.write(marker.getValue());
      seen.withNoOutputTimestamp().set(marker.getValue().minus(Duration.millis(1)));
    }

    @OnTimer(SEEN)
    public void onSeen(@StateId(TARGET) ValueState<Instant> target, @TimerId(SEEN) Timer seen) {
      Instant watermark = seen.getCurrentRelativeTime();
      PROBES.get(gate).get(probe).accumulateAndGet(watermark.getMillis(), Math::max);
      Instant wanted = target.read();
      if (wanted != null && watermark.isBefore(wanted)) {
        // Fired a millisecond early (runners differ in whether a timer at t fires at t or after).
        seen.withNoOutputTimestamp().set(watermark.plus(Duration.millis(1)));
      } else {
        target.clear(); // seen: the probe holds nothing until the next marker
      }
    }
  }

  /** Reads the steps; a checkpoint is the number of steps taken. */
  private static final class ReplaySource<T> extends UnboundedSource<KV<Instant, T>, Position> {
    private static final long serialVersionUID = 1L;
    private final Coder<T> coder;
    private final List<Step> steps;
    private final String gate;
    private final long maxWaitMillis;

    ReplaySource(Coder<T> coder, List<Step> steps, String gate, long maxWaitMillis) {
      this.coder = coder;
      this.steps = steps;
      this.gate = gate;
      this.maxWaitMillis = maxWaitMillis;
    }

    @Override
    public List<ReplaySource<T>> split(int desiredNumSplits, PipelineOptions options) {
      return List.of(this);
    }

    @Override
    public UnboundedReader<KV<Instant, T>> createReader(
        PipelineOptions options, Position checkpoint) {
      return new ReplayReader<>(this, checkpoint == null ? 0 : checkpoint.taken);
    }

    @Override
    public Coder<Position> getCheckpointMarkCoder() {
      return PositionCoder.INSTANCE;
    }

    @Override
    public Coder<KV<Instant, T>> getOutputCoder() {
      return KvCoder.of(NullableCoder.of(InstantCoder.of()), NullableCoder.of(coder));
    }
  }

  private static final class Position implements UnboundedSource.CheckpointMark {
    final int taken;
    // The gate of the reader that made this mark; null once decoded (a restored mark).
    final String gate;

    Position(int taken, String gate) {
      this.taken = taken;
      this.gate = gate;
    }

    @Override
    public void finalizeCheckpoint() {
      if (gate != null) {
        CHECKPOINTED
            .computeIfAbsent(gate, g -> new AtomicLong())
            .accumulateAndGet(taken, Math::max);
      }
    }
  }

  private static final class PositionCoder extends CustomCoder<Position> {
    static final PositionCoder INSTANCE = new PositionCoder();

    @Override
    public void encode(Position value, OutputStream out) throws IOException {
      VarLongCoder.of().encode((long) value.taken, out);
    }

    @Override
    public Position decode(InputStream in) throws IOException {
      return new Position(VarLongCoder.of().decode(in).intValue(), null);
    }
  }

  private static final class ReplayReader<T>
      extends UnboundedSource.UnboundedReader<KV<Instant, T>> {
    private final ReplaySource<T> source;
    private int taken;
    private long watermark = BoundedWindow.TIMESTAMP_MIN_VALUE.getMillis();
    private boolean markerOut; // the marker of the advance at `taken` has been emitted
    private long waitingSinceNanos = -1;
    private KV<Instant, T> current;
    private Instant currentTimestamp;

    ReplayReader(ReplaySource<T> source, int taken) {
      this.source = source;
      this.taken = taken;
      for (int i = 0; i < taken; i++) {
        if (source.steps.get(i).isWatermark()) {
          watermark = source.steps.get(i).millis;
        }
      }
    }

    @Override
    public boolean start() {
      return advance();
    }

    @Override
    public boolean advance() {
      current = null;
      while (taken < source.steps.size()) {
        Step step = source.steps.get(taken);
        if (step.isHold()) {
          boolean released =
              step.checkpoint
                  ? CHECKPOINTED.getOrDefault(source.gate, new AtomicLong()).get() >= taken
                  : step.released.holds();
          if (!released) {
            waitOrFail("released: " + step.what, "not yet");
            return false;
          }
          waitingSinceNanos = -1;
          taken++;
          continue;
        }
        if (!step.isWatermark()) {
          taken++;
          return emit(KV.of(null, decode(step.element)), new Instant(step.millis));
        }
        if (!markerOut) {
          // The marker is on time: at the watermark before the advance.
          markerOut = true;
          Instant before = new Instant(watermark);
          watermark = step.millis;
          return emit(KV.of(new Instant(step.millis), null), before);
        }
        long observed = observed(source.gate);
        if (observed < step.millis) {
          waitOrFail(
              "watermark " + new Instant(step.millis) + " to reach its probes",
              observed == Long.MIN_VALUE ? "no watermark yet" : new Instant(observed).toString());
          return false;
        }
        waitingSinceNanos = -1;
        markerOut = false;
        taken++;
      }
      watermark = BoundedWindow.TIMESTAMP_MAX_VALUE.getMillis();
      return false;
    }

    private boolean emit(KV<Instant, T> item, Instant timestamp) {
      current = item;
      currentTimestamp = timestamp;
      return true;
    }

    private void waitOrFail(String what, String lastSeen) {
      long now = System.nanoTime();
      if (waitingSinceNanos < 0) {
        waitingSinceNanos = now;
      } else if (now - waitingSinceNanos > source.maxWaitMillis * 1_000_000) {
        throw new IllegalStateException(
            String.format(
                "GatedReplay waited %s for %s; last seen: %s. The probes and holds report through"
                    + " this JVM's memory, so the gated source runs only on in-process runners"
                    + " (DirectRunner, embedded Flink)",
                Duration.millis(source.maxWaitMillis), what, lastSeen));
      }
    }

    private T decode(byte[] bytes) {
      try {
        return source.coder.decode(new ByteArrayInputStream(bytes));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot decode a replayed element", e);
      }
    }

    @Override
    public KV<Instant, T> getCurrent() {
      if (current == null) {
        throw new NoSuchElementException("no current element");
      }
      return current;
    }

    @Override
    public Instant getCurrentTimestamp() {
      getCurrent();
      return currentTimestamp;
    }

    @Override
    public Instant getWatermark() {
      return new Instant(watermark);
    }

    @Override
    public UnboundedSource.CheckpointMark getCheckpointMark() {
      return new Position(taken, source.gate);
    }

    @Override
    public UnboundedSource<KV<Instant, T>, ?> getCurrentSource() {
      return source;
    }

    @Override
    public void close() {}
  }
}
