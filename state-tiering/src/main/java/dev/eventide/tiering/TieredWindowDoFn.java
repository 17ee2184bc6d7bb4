package dev.eventide.tiering;

import dev.eventide.blockstore.BlockName;
import dev.eventide.blockstore.BlockStore;
import dev.eventide.blockstore.BlockStores;
import dev.eventide.blockstore.internal.bag.BlockInfo;
import dev.eventide.blockstore.internal.bag.TieredBag;
import dev.eventide.runtime.internal.WatermarkFloor;
import dev.eventide.tiering.internal.io.IoScheduler;
import dev.eventide.tiering.internal.io.IoScheduler.Priority;
import dev.eventide.tiering.internal.io.PrestagePlanner;
import dev.eventide.tiering.internal.io.StagingArea;
import dev.eventide.tiering.internal.io.TieredIo;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Base64;
import java.util.List;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Distribution;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTag;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The stateful DoFn behind {@code TieredWindow}. Its input is keyed by the user's key and one
 * window of the value ({@link KeyByWindow}, or a {@link LatenessGate}) in the global window, so it
 * keeps one window's state under a key of its own, and Beam sets no cleanup timer holding the
 * watermark at the window's end until the window expires (as it would for state in the user's
 * windows): the watermark after this step is held only by on-time panes still to fire, as after a
 * windowed {@code GroupByKey}.
 *
 * <ul>
 *   <li>Every value goes into the window's {@link TieredBag}: its memory bucket in Beam state,
 *       spilling to blocks when the bucket is full. A value whose window has expired by the input
 *       watermark (its end plus its cleanup bound is behind it) is dropped, as Beam drops it, or,
 *       behind a gate, made a dead letter.
 *   <li>The {@code fire} timer, at the end of the window and holding the watermark there, fires the
 *       on-time pane and destages the window (keeping the bootstrap fraction). A late value sets it
 *       again at the input watermark, holding the output watermark there: it fires at the next
 *       watermark advance, with every late value that came before it, before that advance goes
 *       downstream. The first late value of a destaged window pre-stages its blocks: a learned Δt
 *       before the next watermark advance is expected ({@link PrestagePlanner}), or at once.
 *   <li>The {@code purge} timer, at the end of the window's cleanup bound (the allowed lateness, or
 *       what predictive cleanup set), fires a pending pane as the last one and clears the window's
 *       state. Its blocks are not deleted here but by {@link PurgeBlocksFn}, to which a window with
 *       blocks sends them (the {@link #purges()} output): on a runner that restores checkpoints,
 *       only once a checkpoint in which the window is cleared has completed.
 *   <li>A window purged before the end of its allowed lateness keeps a marker until then (the
 *       {@code purge} timer again, holding nothing), which makes any value still reaching it a dead
 *       letter. Flink does not checkpoint watermarks: a job restored from a checkpoint reads on at
 *       the start of time until the source's first watermark, and without the marker a value
 *       replayed in between would start the window again, where the undisturbed run made it a dead
 *       letter.
 * </ul>
 *
 * <p>Once a window's state is cleared its key holds nothing: the metric {@value
 * TieringMetrics#WINDOWS_HOLDING_STATE} counts the keys and windows in between.
 */
final class TieredWindowDoFn<K, V, O>
    extends DoFn<KV<KV<K, BoundedWindow>, Admitted<V>>, KV<K, O>> {

  /** What the transform was configured with. */
  record Settings(
      String stepName,
      String storeUri,
      long memoryElements,
      long memoryBytes,
      double bootstrapFraction,
      boolean prestaging,
      boolean prestageAhead,
      Duration allowedLateness,
      Duration purgeDelay)
      implements Serializable {}

  private static final String METRICS = TieringMetrics.NAMESPACE;

  private static final Counter BYTES_DESTAGED = Metrics.counter(METRICS, "bytesDestaged");
  private static final Counter BYTES_STAGED = Metrics.counter(METRICS, "bytesStaged");
  private static final Counter BLOCKS_WRITTEN = Metrics.counter(METRICS, "blocksWritten");
  private static final Counter PRESTAGE_HITS = Metrics.counter(METRICS, "prestageHits");
  private static final Counter PRESTAGE_MISSES = Metrics.counter(METRICS, "prestageMisses");
  private static final Counter IO_WAIT_MILLIS = Metrics.counter(METRICS, "firingIoWaitMillis");
  private static final Counter ON_TIME_PANES = Metrics.counter(METRICS, "onTimePanes");
  private static final Counter LATE_PANES = Metrics.counter(METRICS, "latePanes");
  private static final Distribution ON_TIME_FIRING_IO_WAIT =
      Metrics.distribution(METRICS, "onTimeFiringIoWaitMillis");
  private static final Distribution LATE_FIRING_IO_WAIT =
      Metrics.distribution(METRICS, "lateFiringIoWaitMillis");
  private static final Distribution MEMORY_BUCKET_BYTES =
      Metrics.distribution(METRICS, "memoryBucketBytes");
  private static final Counter DEAD_LETTERS = Metrics.counter(METRICS, "deadLetters");
  private static final Counter DROPPED = Metrics.counter(METRICS, "droppedLateValues");
  private static final Counter WINDOWS =
      Metrics.counter(METRICS, TieringMetrics.WINDOWS_HOLDING_STATE);

  /** The main output: the window function's results. */
  static <K, O> TupleTag<KV<K, O>> results() {
    return new TupleTag<>("results");
  }

  /**
   * The purges of windows that had blocks, keyed by shard of purge records ({@link
   * PurgeBlocksFn#purge}), and at each start of this DoFn an element without a purge for every
   * shard, so that {@link TakeOverShardsFn} hands every shard to a worker at once.
   */
  static TupleTag<KV<Integer, KV<String, List<String>>>> purges() {
    return new TupleTag<>("purges");
  }

  private final TupleTag<KV<K, O>> resultsTag = results();

  // State and timer ids name Beam state that outlives a pipeline (checkpoints, savepoints): keep
  // them.
  private static final String MEMORY = "encodedMemory";
  private static final String MEMORY_SIZE = "memorySize";
  private static final String MANIFEST = "blocks";
  private static final String PROGRESS = "progress";
  private static final String FIRE = "fire";
  private static final String PURGE = "purge";

  @StateId(MEMORY)
  private final StateSpec<BagState<byte[]>> memorySpec = StateSpecs.bag(ByteArrayCoder.of());

  @StateId(MEMORY_SIZE)
  private final StateSpec<ValueState<KV<Long, Long>>> memorySizeSpec =
      StateSpecs.value(KvCoder.of(VarLongCoder.of(), VarLongCoder.of()));

  @StateId(MANIFEST)
  private final StateSpec<BagState<String>> manifestSpec = StateSpecs.bag(StringUtf8Coder.of());

  @StateId(PROGRESS)
  private final StateSpec<ValueState<WindowProgress>> progressSpec =
      StateSpecs.value(new WindowProgress.Coder());

  @TimerId(FIRE)
  private final TimerSpec fireSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

  @TimerId(PURGE)
  private final TimerSpec purgeSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

  private final Settings settings;
  private final boolean gated;
  private final WindowFunction<K, V, O> function;
  private final Coder<K> keyCoder;
  private final Coder<V> valueCoder;
  private final Coder<BoundedWindow> windowCoder;
  private final @Nullable PCollectionView<Long> floor;

  private transient TieredIo io;
  private transient PrestagePlanner planner;
  private transient WatermarkFloor.Judge judge;
  // Whether this instance has sent its start to the shards of purge records.
  private transient boolean shardsPinged;

  TieredWindowDoFn(
      Settings settings,
      boolean gated,
      WindowFunction<K, V, O> function,
      Coder<K> keyCoder,
      Coder<V> valueCoder,
      Coder<BoundedWindow> windowCoder,
      @Nullable PCollectionView<Long> floor) {
    this.settings = settings;
    this.gated = gated;
    this.function = function;
    this.keyCoder = keyCoder;
    this.valueCoder = valueCoder;
    this.windowCoder = windowCoder;
    this.floor = floor;
  }

  /**
   * A late pane carries its window's {@code maxTimestamp}, as Beam's own late panes do, from timers
   * whose output timestamp is later: a planned late firing (staleness bound) and the purge are set
   * without holding the watermark at the window's end, which would stall every step downstream for
   * up to the cleanup bound. Like Beam's late panes, such a pane is behind the watermark.
   */
  @Override
  @SuppressWarnings("deprecation") // the only way to emit behind a timer's output timestamp
  public Duration getAllowedTimestampSkew() {
    return Duration.millis(Long.MAX_VALUE);
  }

  @Setup
  public void setup() throws IOException {
    BlockStore store = BlockStores.open(settings.storeUri());
    io = new TieredIo(store, IoScheduler.shared(), StagingArea.shared());
    planner = new PrestagePlanner();
    judge = new WatermarkFloor.Judge();
  }

  @Teardown
  public void teardown() throws IOException {
    if (io != null) {
      io.store().close();
    }
  }

  /**
   * Sends every shard of purge records an element without a purge, once per instance: a worker that
   * starts (after a failure too) has every shard taken over, its records resumed, without waiting
   * for a purge of that shard.
   */
  private void pingShardsOnce(MultiOutputReceiver out) {
    if (shardsPinged) {
      return;
    }
    shardsPinged = true;
    OutputReceiver<KV<Integer, KV<String, List<String>>>> purges = out.get(purges());
    for (int shard = 0; shard < PurgeBlocksFn.SHARDS; shard++) {
      purges.output(KV.of(shard, null));
    }
  }

  @ProcessElement
  public void processElement(
      @Element KV<KV<K, BoundedWindow>, Admitted<V>> element,
      @StateId(MEMORY) BagState<byte[]> memory,
      @StateId(MEMORY_SIZE) ValueState<KV<Long, Long>> memorySize,
      @StateId(MANIFEST) BagState<String> manifest,
      @StateId(PROGRESS) ValueState<WindowProgress> progressState,
      @TimerId(FIRE) Timer fire,
      @TimerId(PURGE) Timer purge,
      ProcessContext context,
      MultiOutputReceiver out) {
    pingShardsOnce(out);
    progressState.readLater();
    memorySize.readLater();
    K key = element.getKey().getKey();
    BoundedWindow window = element.getKey().getValue();
    Admitted<V> admitted = element.getValue();
    Instant timestamp = new Instant(admitted.eventTimeMillis());
    Instant end = window.maxTimestamp();
    // Not earlier than the floor: after a restore, a replayed value is judged as before.
    Instant watermark =
        judge.watermark(fire.getCurrentRelativeTime(), WatermarkFloor.read(context, floor));
    boolean late = watermark.isAfter(end);
    WindowProgress progress = read(progressState);
    long cleanup =
        progress.elements() > 0 || progress.purged()
            ? progress.cleanupMillis()
            : admitted.cleanupMillis();
    if (progress.purged()
        || watermark.getMillis() > LatenessGate.expiry(end.getMillis(), cleanup)) {
      // The window has expired (or was purged): never into a purged window. Behind a gate this
      // happens only after a restore (the marker): the value's timestamp, its deadline here, held
      // this step's watermark at or before it until the value arrived.
      if (!gated) {
        DROPPED.inc();
        return;
      }
      DEAD_LETTERS.inc();
      out.get(LatenessGate.<K, V>deadLetters())
          .output(
              new DeadLetter<>(
                  key,
                  admitted.value(),
                  timestamp,
                  (IntervalWindow) window,
                  // A restored job's watermark may be behind the one that purged the window.
                  Math.max(watermark.getMillis() - end.getMillis(), cleanup + 1),
                  cleanup,
                  DeadLetter.Reason.BEYOND_CLEANUP_BOUND));
      return;
    }
    planner.observeWatermark(watermark.getMillis(), System.nanoTime());
    if (progress.elements() == 0) {
      WINDOWS.inc();
      purge.set(new Instant(LatenessGate.expiry(end.getMillis(), cleanup)));
    }
    TieredBag<V> bag =
        bag(
            key,
            window,
            new BeamBagState(memory, memorySize, manifest),
            late ? Priority.LATE_APPEND : Priority.DESTAGE);
    try {
      bag.add(admitted.value());
    } catch (IOException e) {
      throw failure(
          late ? "could not add a late element to" : "could not add an element to", key, window, e);
    }
    if (!progress.pending()) {
      if (settings.prestaging() && progress.panes() > 0) {
        List<BlockName> blocks = bag.blocks().stream().map(BlockInfo::name).toList();
        long delayNanos =
            settings.prestageAhead() ? planner.delayNanos(blocks.size(), System.nanoTime()) : 0;
        io.prestage(
            blocks, delayNanos / 1_000_000, nanos -> planner.observeStaging(blocks.size(), nanos));
      }
      if (late && admitted.fireMillis() > 0) {
        // The staleness plan's next execution, holding the output watermark at that time only: not
        // at the window's end, which would stall every step downstream until then.
        fire.set(new Instant(LatenessGate.expiry(end.getMillis(), admitted.fireMillis())));
      } else {
        // On time: at the window's end, holding the output watermark there, as a GroupByKey's
        // on-time pane does. Late: at the input watermark, so it fires at the next advance and
        // holds the output watermark here until then: the late pane reaches the next step before
        // that advance does. (A timer already due holds nothing on the DirectRunner: it fires at
        // the next watermark refresh, which moves the output watermark on with it.)
        Instant at = late ? watermark : end;
        fire.withOutputTimestamp(at).set(at);
      }
    }
    progressState.write(progress.withElement(late, cleanup));
  }

  @OnTimer(FIRE)
  public void onFire(
      @Key KV<K, BoundedWindow> keyAndWindow,
      @StateId(MEMORY) BagState<byte[]> memory,
      @StateId(MEMORY_SIZE) ValueState<KV<Long, Long>> memorySize,
      @StateId(MANIFEST) BagState<String> manifest,
      @StateId(PROGRESS) ValueState<WindowProgress> progressState,
      @TimerId(FIRE) Timer fire,
      MultiOutputReceiver out) {
    pingShardsOnce(out);
    readAllLater(memory, memorySize, manifest, progressState);
    BoundedWindow window = keyAndWindow.getValue();
    long expiry =
        LatenessGate.expiry(window.maxTimestamp().getMillis(), read(progressState).cleanupMillis());
    boolean last = fire.getCurrentRelativeTime().getMillis() > expiry;
    fireIfPending(
        keyAndWindow.getKey(),
        window,
        new BeamBagState(memory, memorySize, manifest),
        progressState,
        last,
        out.get(resultsTag));
  }

  @OnTimer(PURGE)
  public void onPurge(
      @Key KV<K, BoundedWindow> keyAndWindow,
      @StateId(MEMORY) BagState<byte[]> memory,
      @StateId(MEMORY_SIZE) ValueState<KV<Long, Long>> memorySize,
      @StateId(MANIFEST) BagState<String> manifest,
      @StateId(PROGRESS) ValueState<WindowProgress> progressState,
      @TimerId(PURGE) Timer purge,
      MultiOutputReceiver out) {
    readAllLater(memory, memorySize, manifest, progressState);
    K key = keyAndWindow.getKey();
    BoundedWindow window = keyAndWindow.getValue();
    WindowProgress before = read(progressState);
    if (before.purged()) {
      // The marker's timer has no output timestamp, so this firing may output nothing, not even a
      // fresh instance's pings: SimpleDoFnRunner#checkTimestamp refuses them.
      progressState.clear(); // the end of the marker, and of the window's state
      WINDOWS.dec();
      return;
    }
    pingShardsOnce(out);
    BeamBagState state = new BeamBagState(memory, memorySize, manifest);
    // Timers due at once may fire in any order: a pending pane goes out before the purge.
    fireIfPending(key, window, state, progressState, true, out.get(resultsTag));
    List<BlockName> blocks = state.manifest().stream().map(BlockInfo::name).toList();
    if (!blocks.isEmpty()) {
      out.get(purges()).output(PurgeBlocksFn.purge(owner(key, window), blocks));
    }
    state.clearManifest();
    state.clearMemory();
    long end = window.maxTimestamp().getMillis();
    long allowed = LatenessGate.expiry(end, settings.allowedLateness().getMillis());
    // (Empty if the runner cleared it already: Flink does at the end of a bounded input.)
    if (gated
        && before.elements() > 0
        && allowed > LatenessGate.expiry(end, before.cleanupMillis())) {
      // A marker of a few bytes until the allowed lateness ends: a value still reaching the window
      // is a dead letter, also after a restore. The window's state ends with it.
      progressState.write(read(progressState).afterPurge());
      purge.withNoOutputTimestamp().set(new Instant(allowed));
    } else {
      progressState.clear();
      WINDOWS.dec();
    }
  }

  private void fireIfPending(
      K key,
      BoundedWindow window,
      BeamBagState state,
      ValueState<WindowProgress> progressState,
      boolean last,
      OutputReceiver<KV<K, O>> out) {
    WindowProgress progress = read(progressState);
    if (!progress.pending()) {
      return;
    }
    long[] waitedMillis = {0};
    TieredIo.Listener listener =
        new TieredIo.Listener() {
          @Override
          public void written(long bytes) {
            METRICS_LISTENER.written(bytes);
          }

          @Override
          public void read(long bytes, boolean prestaged, long waited) {
            METRICS_LISTENER.read(bytes, prestaged, waited);
            waitedMillis[0] += waited;
          }

          @Override
          public void deleted(int blocks) {
            METRICS_LISTENER.deleted(blocks);
          }
        };
    TieredBag<V> bag = bag(key, window, state, io.view(Priority.DESTAGE, listener));
    MEMORY_BUCKET_BYTES.update(bag.memoryBytes());
    O result;
    try {
      result = function.apply(key, window, bag.read());
    } catch (UncheckedIOException e) {
      throw failure("could not read the state of", key, window, e.getCause());
    }
    out.builder(KV.of(key, result))
        .setTimestamp(window.maxTimestamp())
        .setWindow(window)
        .setPaneInfo(progress.nextPane(last))
        .output();
    (progress.panes() == 0 ? ON_TIME_PANES : LATE_PANES).inc();
    (progress.panes() == 0 ? ON_TIME_FIRING_IO_WAIT : LATE_FIRING_IO_WAIT).update(waitedMillis[0]);
    if (!last) {
      try {
        bag.destage((long) Math.ceil(settings.bootstrapFraction() * progress.elements()));
      } catch (IOException e) {
        throw failure("could not destage", key, window, e);
      }
    }
    progressState.write(progress.fired());
  }

  private TieredBag<V> bag(K key, BoundedWindow window, BeamBagState state, Priority priority) {
    return bag(key, window, state, io.view(priority, METRICS_LISTENER));
  }

  private TieredBag<V> bag(K key, BoundedWindow window, BeamBagState state, BlockStore store) {
    return new TieredBag<>(
        owner(key, window),
        new CoderCodec<>(valueCoder),
        state,
        store,
        new TieredBag.Limits(settings.memoryElements(), settings.memoryBytes()));
  }

  /**
   * The owner of a key's window blocks: the step's name, key and window. Derived from names alone,
   * so a job restored from a savepoint or updated in place owns (and purges) the blocks that the
   * earlier run wrote.
   */
  private String owner(K key, BoundedWindow window) {
    try {
      Base64.Encoder base64 = Base64.getUrlEncoder().withoutPadding();
      return settings.stepName()
          + "/"
          + base64.encodeToString(CoderUtils.encodeToByteArray(keyCoder, key))
          + "/"
          + base64.encodeToString(CoderUtils.encodeToByteArray(windowCoder, window));
    } catch (IOException e) {
      throw new UncheckedIOException("could not encode a key or window of TieredWindow", e);
    }
  }

  private RuntimeException failure(String what, K key, BoundedWindow window, IOException cause) {
    return new IllegalStateException(
        "TieredWindow "
            + what
            + " window "
            + window
            + " of key "
            + key
            + " in block store "
            + settings.storeUri()
            + ": "
            + cause.getMessage(),
        cause);
  }

  /** A firing reads every cell: one batched fetch on runners that batch, not four. */
  private static void readAllLater(
      BagState<?> memory, ValueState<?> memorySize, BagState<?> manifest, ValueState<?> progress) {
    memory.readLater();
    memorySize.readLater();
    manifest.readLater();
    progress.readLater();
  }

  private static WindowProgress read(ValueState<WindowProgress> state) {
    WindowProgress progress = state.read();
    return progress == null ? WindowProgress.EMPTY : progress;
  }

  private static final TieredIo.Listener METRICS_LISTENER =
      new TieredIo.Listener() {
        @Override
        public void written(long bytes) {
          BYTES_DESTAGED.inc(bytes);
          BLOCKS_WRITTEN.inc();
        }

        @Override
        public void read(long bytes, boolean prestaged, long waitedMillis) {
          BYTES_STAGED.inc(bytes);
          (prestaged ? PRESTAGE_HITS : PRESTAGE_MISSES).inc();
          IO_WAIT_MILLIS.inc(waitedMillis);
        }

        @Override
        public void deleted(int blocks) {
          // Never: blocks are deleted by PurgeBlocksFn, which counts them.
        }
      };
}
