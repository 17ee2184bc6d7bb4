package dev.eventide.tiering;

import dev.eventide.tiering.internal.bag.TieredBag;
import dev.eventide.tiering.internal.io.IoScheduler;
import dev.eventide.tiering.internal.io.IoScheduler.Priority;
import dev.eventide.tiering.internal.io.PrestagePlanner;
import dev.eventide.tiering.internal.io.StagingArea;
import dev.eventide.tiering.internal.io.TieredIo;
import dev.eventide.tiering.store.BlockName;
import dev.eventide.tiering.store.BlockStore;
import dev.eventide.tiering.store.BlockStores;
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
import org.apache.beam.sdk.values.TupleTag;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The stateful DoFn behind {@code TieredWindow}: the input is already in its windows, so Beam keeps
 * this DoFn's state and timers per key and window, and drops what is later than the allowed
 * lateness exactly as it does for a {@code GroupByKey}.
 *
 * <ul>
 *   <li>Every element goes into the window's {@link TieredBag}: its memory bucket in Beam state,
 *       spilling to blocks when the bucket is full.
 *   <li>The {@code fire} timer, at the end of the window, fires the on-time pane and destages the
 *       window (keeping the bootstrap fraction). A late element sets it again: it is already due,
 *       so it fires at the next watermark advance, with every late element that came before it. The
 *       first late element of a destaged window pre-stages its blocks: a learned Δt before the next
 *       watermark advance is expected ({@link PrestagePlanner}), or at once.
 *   <li>The {@code purge} timer, at the end of the window's cleanup bound (the allowed lateness, or
 *       what predictive cleanup set), deletes the window's state and blocks, at once or after the
 *       purge delay.
 * </ul>
 *
 * <p>Its input is the values ({@code I} is {@code V}), or, behind a {@link LatenessGate}, {@link
 * Admitted} values ({@code I} is {@code Admitted<V>}): each says which of its windows take it,
 * their cleanup bound and when its late pane fires (a staleness plan's next execution, or at once).
 */
final class TieredWindowDoFn<K, I, V, O> extends DoFn<KV<K, I>, KV<K, O>> {

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
  private static final Counter BLOCKS_PURGED = Metrics.counter(METRICS, "blocksPurged");
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
  private static final Counter WINDOWS =
      Metrics.counter(METRICS, TieringMetrics.WINDOWS_HOLDING_STATE);

  /** The main output: the window function's results. */
  static <K, O> TupleTag<KV<K, O>> results() {
    return new TupleTag<>("results");
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
  private final Coder<? extends BoundedWindow> windowCoder;

  private transient TieredIo io;
  private transient PrestagePlanner planner;

  TieredWindowDoFn(
      Settings settings,
      boolean gated,
      WindowFunction<K, V, O> function,
      Coder<K> keyCoder,
      Coder<V> valueCoder,
      Coder<? extends BoundedWindow> windowCoder) {
    this.settings = settings;
    this.gated = gated;
    this.function = function;
    this.keyCoder = keyCoder;
    this.valueCoder = valueCoder;
    this.windowCoder = windowCoder;
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
    if (settings.purgeDelay().getMillis() > 0) {
      // A worker before this one may have stopped with delayed purges still to do.
      try {
        io.resumePurges(purgeRecords());
      } catch (IOException e) {
        throw new IOException(
            "TieredWindow "
                + settings.stepName()
                + " could not read its purge records in block store "
                + settings.storeUri()
                + ": "
                + e.getMessage(),
            e);
      }
    }
  }

  @Teardown
  public void teardown() throws IOException {
    if (io != null) {
      io.store().close();
    }
  }

  @ProcessElement
  public void processElement(
      @Element KV<K, I> element,
      @Timestamp Instant timestamp,
      BoundedWindow window,
      @StateId(MEMORY) BagState<byte[]> memory,
      @StateId(MEMORY_SIZE) ValueState<KV<Long, Long>> memorySize,
      @StateId(MANIFEST) BagState<String> manifest,
      @StateId(PROGRESS) ValueState<WindowProgress> progressState,
      @TimerId(FIRE) Timer fire,
      @TimerId(PURGE) Timer purge,
      MultiOutputReceiver out) {
    progressState.readLater();
    memorySize.readLater();
    Admitted<V> admitted = admitted(element.getValue());
    long cleanup = settings.allowedLateness().getMillis();
    long fireAfterEnd = 0;
    if (admitted.windows() != null) {
      Admitted.WindowTerms terms = admitted.termsOf(((IntervalWindow) window).start().getMillis());
      if (terms == null) {
        return; // a dead letter for this window, counted by the gate
      }
      cleanup = terms.cleanupMillis();
      fireAfterEnd = terms.fireMillis();
    }
    Instant end = window.maxTimestamp();
    Instant watermark = fire.getCurrentRelativeTime();
    boolean late = watermark.isAfter(end);
    WindowProgress progress = read(progressState);
    if (progress.elements() > 0) {
      cleanup = progress.cleanupMillis();
    }
    if (gated && watermark.getMillis() > LatenessGate.expiry(end.getMillis(), cleanup)) {
      // Past the window's cleanup bound here though the gate admitted it: never into a purged
      // window. (The gate's watermark is ahead of this step's, so this should not happen; without
      // a gate, Beam drops what is past the allowed lateness before this step.)
      DEAD_LETTERS.inc();
      out.get(LatenessGate.<K, V>deadLetters())
          .output(
              new DeadLetter<>(
                  element.getKey(),
                  admitted.value(),
                  timestamp,
                  (IntervalWindow) window,
                  watermark.getMillis() - end.getMillis(),
                  cleanup,
                  DeadLetter.Reason.BEYOND_CLEANUP_BOUND));
      return;
    }
    planner.observeWatermark(watermark.getMillis(), System.nanoTime());
    if (progress.elements() == 0) {
      purge.set(new Instant(LatenessGate.expiry(end.getMillis(), cleanup)));
      WINDOWS.inc();
    }
    TieredBag<V> bag =
        bag(
            element.getKey(),
            window,
            new BeamBagState(memory, memorySize, manifest),
            late ? Priority.LATE_APPEND : Priority.DESTAGE);
    try {
      bag.add(admitted.value());
    } catch (IOException e) {
      throw failure(
          late ? "could not add a late element to" : "could not add an element to",
          element.getKey(),
          window,
          e);
    }
    if (!progress.pending()) {
      if (settings.prestaging() && progress.panes() > 0) {
        List<BlockName> blocks = bag.blocks();
        long delayNanos =
            settings.prestageAhead() ? planner.delayNanos(blocks.size(), System.nanoTime()) : 0;
        io.prestage(
            blocks, delayNanos / 1_000_000, nanos -> planner.observeStaging(blocks.size(), nanos));
      }
      if (late && fireAfterEnd > 0) {
        // The staleness plan's next execution. No output hold: it may be long after the window's
        // end, and holding the watermark there would stall every step downstream.
        fire.set(new Instant(LatenessGate.expiry(end.getMillis(), fireAfterEnd)));
      } else {
        // Due now if the element is late: it fires at the next watermark advance.
        fire.withOutputTimestamp(end).set(end);
      }
    }
    progressState.write(progress.withElement(late, cleanup));
  }

  @OnTimer(FIRE)
  public void onFire(
      @Key K key,
      BoundedWindow window,
      @StateId(MEMORY) BagState<byte[]> memory,
      @StateId(MEMORY_SIZE) ValueState<KV<Long, Long>> memorySize,
      @StateId(MANIFEST) BagState<String> manifest,
      @StateId(PROGRESS) ValueState<WindowProgress> progressState,
      @TimerId(FIRE) Timer fire,
      MultiOutputReceiver out) {
    readAllLater(memory, memorySize, manifest, progressState);
    long expiry =
        LatenessGate.expiry(window.maxTimestamp().getMillis(), read(progressState).cleanupMillis());
    boolean last = fire.getCurrentRelativeTime().getMillis() > expiry;
    fireIfPending(
        key,
        window,
        new BeamBagState(memory, memorySize, manifest),
        progressState,
        last,
        out.get(resultsTag));
  }

  @OnTimer(PURGE)
  public void onPurge(
      @Key K key,
      BoundedWindow window,
      @StateId(MEMORY) BagState<byte[]> memory,
      @StateId(MEMORY_SIZE) ValueState<KV<Long, Long>> memorySize,
      @StateId(MANIFEST) BagState<String> manifest,
      @StateId(PROGRESS) ValueState<WindowProgress> progressState,
      MultiOutputReceiver out) {
    readAllLater(memory, memorySize, manifest, progressState);
    BeamBagState state = new BeamBagState(memory, memorySize, manifest);
    // Timers due at once may fire in any order: a pending pane goes out before the purge.
    fireIfPending(key, window, state, progressState, true, out.get(resultsTag));
    TieredBag<V> bag = bag(key, window, state, Priority.DESTAGE);
    if (settings.purgeDelay().getMillis() > 0) {
      BLOCKS_PURGED.inc(bag.blocks().size());
      try {
        io.purgeLater(
            purgeRecords(), owner(key, window), bag.blocks(), settings.purgeDelay().getMillis());
      } catch (IOException e) {
        throw failure("could not record the purge of", key, window, e);
      }
      state.clearManifest();
      state.clearMemory();
    } else {
      try {
        bag.clear();
        bag.collectGarbage();
      } catch (IOException e) {
        throw failure("could not purge", key, window, e);
      }
    }
    progressState.clear();
    WINDOWS.dec();
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
        valueCoder,
        state,
        store,
        new TieredBag.Limits(settings.memoryElements(), settings.memoryBytes()));
  }

  /** The owner of this step's purge records: not a window's ({@code stepName/key/window}). */
  private String purgeRecords() {
    return "purges of " + settings.stepName();
  }

  /**
   * The owner of a key's window blocks: the step's name, key and window. Derived from names alone,
   * so a job restored from a savepoint or updated in place owns (and purges) the blocks that the
   * earlier run wrote.
   */
  @SuppressWarnings("unchecked")
  private String owner(K key, BoundedWindow window) {
    try {
      Base64.Encoder base64 = Base64.getUrlEncoder().withoutPadding();
      return settings.stepName()
          + "/"
          + base64.encodeToString(CoderUtils.encodeToByteArray(keyCoder, key))
          + "/"
          + base64.encodeToString(
              CoderUtils.encodeToByteArray((Coder<BoundedWindow>) windowCoder, window));
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

  /** The input as a value with its gate's decisions (none without a gate). */
  @SuppressWarnings("unchecked") // I is Admitted<V> behind a gate, V without one
  private Admitted<V> admitted(I input) {
    return gated ? (Admitted<V>) input : new Admitted<>((V) input, null);
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
          BLOCKS_PURGED.inc(blocks);
        }
      };
}
