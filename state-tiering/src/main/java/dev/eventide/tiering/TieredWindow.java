package dev.eventide.tiering;

import com.google.auto.value.AutoValue;
import dev.eventide.blockstore.BlockStores;
import dev.eventide.runtime.internal.WatermarkFloor;
import dev.eventide.tiering.internal.lateness.LatenessModel;
import dev.eventide.tiering.internal.lateness.StalenessPlanner;
import java.nio.file.Path;
import java.util.Map;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.CannotProvideCoderException;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.DefaultTrigger;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.PInput;
import org.apache.beam.sdk.values.POutput;
import org.apache.beam.sdk.values.PValue;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.apache.beam.sdk.values.TypeDescriptors.TypeVariableExtractor;
import org.apache.beam.sdk.values.WindowingStrategy;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;

/**
 * Windows with long allowed lateness whose state does not stay on the heap (the Aion paper on
 * Beam): a {@link WindowFunction} of all of a window's values, per key, fired on time when the
 * watermark passes the window's end and again when late values arrive, up to the allowed lateness.
 *
 * <pre>{@code
 * PCollection<KV<String, Double>> medians = readings.apply(
 *     TieredWindow.of(FixedWindows.of(Duration.standardMinutes(1)),
 *             (String sensor, BoundedWindow window, Iterable<Double> values) -> median(values))
 *         .withAllowedLateness(Duration.standardHours(6))
 *         .withStore("gs://my-bucket/eventide")
 *         .withOutputCoder(DoubleCoder.of()));
 * }</pre>
 *
 * <p>The results are those of {@code Window.into(windowFn).withAllowedLateness(L)
 * .accumulatingFiredPanes()} + {@code GroupByKey} + the same function: the same on-time pane per
 * key and window, and the same final result once all late values are in. Each result carries Beam's
 * {@link org.apache.beam.sdk.transforms.windowing.PaneInfo} (on time, late, last) and the window's
 * {@code maxTimestamp}. How many late panes come between is this transform's choice: the late
 * values that arrive between two watermark advances fire one pane together, where Beam fires one
 * per bundle; a late pane that fires once the allowed lateness is over is marked last (Beam marks
 * no pane last there unless its closing behaviour fires an extra one).
 *
 * <p>What differs is where the values live. A window's values go to Beam state (the memory bucket,
 * bounded by {@link #withMemoryBucket}); at the window's end, after its on-time pane, they move to
 * blocks in a block store ({@link #withStore}: a local directory by default, or Google Cloud
 * Storage), keeping only the {@link #withBootstrapFraction bootstrap fraction} in memory. The first
 * late value of a destaged window starts reading its blocks back ({@link #withPrestaging
 * pre-staging}), so they are on hand when the late pane fires at the next watermark advance. At the
 * end of the allowed lateness the window's blocks are deleted.
 *
 * <p>A window's state lives from its first value until the watermark passes its end plus the
 * allowed lateness (or its predictive cleanup bound); then all of it goes, blocks included. It is
 * kept per key and window in the global window, so the watermark after this transform is held where
 * a windowed {@code GroupByKey} holds it (at the end of windows whose on-time pane is still to
 * fire, and while a late pane is pending), never for the allowed lateness; the results' windowing
 * carries the allowed lateness, accumulating panes and on-time panes only when non-empty, so a
 * downstream {@code Window.into} keeps the late panes as late data (and, on Flink, fires no empty
 * on-time pane for the last windows of a stream). Metric {@value
 * TieringMetrics#WINDOWS_HOLDING_STATE} counts the keys and windows holding state.
 *
 * <p>A block is durable before Beam state names it, so a runner that restores a checkpoint finds
 * every block its state names, as long as blocks are not purged between the checkpoint and the
 * failure. On a cluster, a local-directory store only survives failures that keep a task on its
 * machine; use a shared store ({@code gs://...}) where tasks may move.
 *
 * <p>A window's blocks are filed under its step's full name, key and window, the same in every run
 * of the pipeline: a job restored from a savepoint or updated in place (same step names) purges the
 * blocks its earlier run wrote. Two jobs that share a store must therefore not have a {@code
 * TieredWindow} step of the same name: give each job its own store path.
 *
 * <p>Beyond the paper's spilling: {@link #withPredictiveCleanup} deletes a window's state once it
 * is unlikely to receive more late values (a bound learned per key), {@link #withStalenessBound}
 * fires late panes at planned times instead of at every watermark advance, and {@link
 * #withDeadLetters()} hands out the values that came too late for their window instead of dropping
 * them.
 *
 * <p>Metrics (namespace {@value TieringMetrics#NAMESPACE}): {@code bytesDestaged}, {@code
 * bytesStaged}, {@code blocksWritten}, {@code blocksPurged}, {@code prestageHits}, {@code
 * prestageMisses}, {@code firingIoWaitMillis}, {@code onTimePanes}, {@code latePanes}, {@code
 * droppedLateValues} (values beyond the allowed lateness, without a gate), {@code
 * windowsHoldingState}, and the distributions {@code onTimeFiringIoWaitMillis} and {@code
 * lateFiringIoWaitMillis} (what one firing waited on block reads) and {@code memoryBucketBytes} (a
 * window's memory bucket at each firing); with any of the three options above also {@code
 * lateValues}, {@code deadLetters} and {@code gateKeysHoldingState}, and the distributions {@code
 * latenessMillis} (of each late value, per window) and {@code cleanupBoundMillis} (each estimate).
 *
 * @param <K> the key; its coder must be deterministic
 * @param <V> the values
 * @param <O> the window function's result
 */
@AutoValue
public abstract class TieredWindow<K, V, O>
    extends PTransform<PCollection<KV<K, V>>, PCollection<KV<K, O>>> {

  // Built by its factory methods only (AutoValue's subclass lives in this package).
  TieredWindow() {}

  /** Default bounds of a window's memory bucket. */
  public static final long DEFAULT_MEMORY_ELEMENTS = 10_000;

  public static final long DEFAULT_MEMORY_BYTES = 1 << 20;

  abstract WindowFn<? super KV<K, V>, ?> windowFn();

  abstract WindowFunction<K, V, O> function();

  abstract Duration allowedLateness();

  abstract String storeUri();

  abstract long memoryElements();

  abstract long memoryBytes();

  abstract double bootstrapFraction();

  abstract boolean prestaging();

  abstract boolean prestageAhead();

  abstract @Nullable Coder<O> outputCoder();

  abstract Duration purgeDelay();

  abstract boolean predictiveCleanup();

  abstract double coverage();

  abstract double confidence();

  abstract double stalenessBound();

  abstract Builder<K, V, O> toBuilder();

  @AutoValue.Builder
  abstract static class Builder<K, V, O> {
    abstract Builder<K, V, O> setWindowFn(WindowFn<? super KV<K, V>, ?> windowFn);

    abstract Builder<K, V, O> setFunction(WindowFunction<K, V, O> function);

    abstract Builder<K, V, O> setAllowedLateness(Duration lateness);

    abstract Builder<K, V, O> setStoreUri(String uri);

    abstract Builder<K, V, O> setMemoryElements(long elements);

    abstract Builder<K, V, O> setMemoryBytes(long bytes);

    abstract Builder<K, V, O> setBootstrapFraction(double fraction);

    abstract Builder<K, V, O> setPrestaging(boolean prestaging);

    abstract Builder<K, V, O> setPrestageAhead(boolean ahead);

    abstract Builder<K, V, O> setOutputCoder(Coder<O> coder);

    abstract Builder<K, V, O> setPurgeDelay(Duration delay);

    abstract Builder<K, V, O> setPredictiveCleanup(boolean enabled);

    abstract Builder<K, V, O> setCoverage(double coverage);

    abstract Builder<K, V, O> setConfidence(double confidence);

    abstract Builder<K, V, O> setStalenessBound(double bound);

    abstract TieredWindow<K, V, O> build();
  }

  /**
   * Applies the function to each key's values in each window of the window function.
   *
   * @throws IllegalArgumentException if the windows merge (sessions): a merged window's state would
   *     have to move between owners, which this transform does not do
   */
  public static <K, V, O> TieredWindow<K, V, O> of(
      WindowFn<? super KV<K, V>, ?> windowFn, WindowFunction<K, V, O> function) {
    if (windowFn == null || function == null) {
      throw new IllegalArgumentException("TieredWindow.of needs a WindowFn and a WindowFunction");
    }
    if (!windowFn.isNonMerging()) {
      throw new IllegalArgumentException(
          "TieredWindow supports non-merging windows (fixed, sliding, ...), but "
              + windowFn
              + " merges windows");
    }
    return new AutoValue_TieredWindow.Builder<K, V, O>()
        .setWindowFn(windowFn)
        .setFunction(function)
        .setAllowedLateness(Duration.ZERO)
        .setStoreUri(defaultStore())
        .setMemoryElements(DEFAULT_MEMORY_ELEMENTS)
        .setMemoryBytes(DEFAULT_MEMORY_BYTES)
        .setBootstrapFraction(0.0)
        .setPrestaging(true)
        .setPrestageAhead(false)
        .setPurgeDelay(Duration.ZERO)
        .setPredictiveCleanup(false)
        .setCoverage(LatenessModel.DEFAULT_COVERAGE)
        .setConfidence(LatenessModel.DEFAULT_CONFIDENCE)
        .setStalenessBound(0)
        .build();
  }

  /** A directory {@code eventide-tiering} in the JVM's temporary directory. */
  public static String defaultStore() {
    return Path.of(System.getProperty("java.io.tmpdir"), "eventide-tiering").toUri().toString();
  }

  /** How late a value may be and still change its window's result (Beam's allowed lateness). */
  public TieredWindow<K, V, O> withAllowedLateness(Duration lateness) {
    if (lateness == null || lateness.isShorterThan(Duration.ZERO)) {
      throw new IllegalArgumentException("allowed lateness must be >= 0, but was " + lateness);
    }
    return toBuilder().setAllowedLateness(lateness).build();
  }

  /**
   * Where past windows go: {@code file:///dir} (the default is {@link #defaultStore()}), {@code
   * gs://bucket/prefix}, {@code memory:name} (this JVM's heap, for tests) or the scheme of a {@link
   * dev.eventide.blockstore.BlockStoreProvider}.
   */
  public TieredWindow<K, V, O> withStore(String uri) {
    BlockStores.checkUri(uri);
    return toBuilder().setStoreUri(uri).build();
  }

  /**
   * Bounds a window's memory bucket: when another value would exceed either bound, the bucket is
   * written out as a block. {@code (0, any)} sends every value straight to the store.
   */
  public TieredWindow<K, V, O> withMemoryBucket(long elements, long bytes) {
    if (elements < 0 || bytes < 1) {
      throw new IllegalArgumentException(
          "the memory bucket needs elements >= 0 and bytes >= 1, but was "
              + elements
              + " elements, "
              + bytes
              + " bytes");
    }
    return toBuilder().setMemoryElements(elements).setMemoryBytes(bytes).build();
  }

  /**
   * The fraction ρ_min of a window's values kept in memory when it is destaged (default 0), so a
   * late pane can start on them while the blocks are read.
   */
  public TieredWindow<K, V, O> withBootstrapFraction(double fraction) {
    if (!(fraction >= 0 && fraction <= 1)) {
      throw new IllegalArgumentException(
          "the bootstrap fraction must be in [0, 1], but was " + fraction);
    }
    return toBuilder().setBootstrapFraction(fraction).build();
  }

  /**
   * Whether the first late value of a destaged window reads its blocks ahead (default true). The
   * blocks read ahead stay in memory until the window's late pane fires, so while late values reach
   * many windows between two watermark advances, about that many whole windows are in memory at
   * once: with a long allowed lateness and a small heap, turn pre-staging off (the late pane then
   * waits for its reads).
   */
  public TieredWindow<K, V, O> withPrestaging(boolean enabled) {
    return toBuilder().setPrestaging(enabled).build();
  }

  /**
   * Whether pre-staging waits until a learned Δt before the late pane is expected to fire (the next
   * watermark advance, with periodic watermarks) instead of starting at the first late value
   * (default false). Waiting holds staged blocks in memory for less time; it can be late when I/O
   * queues vary (see docs/benchmarks.md), and then the pane reads on demand.
   */
  public TieredWindow<K, V, O> withPrestagingAhead(boolean ahead) {
    return toBuilder().setPrestageAhead(ahead).build();
  }

  /**
   * How long a window's blocks stay in the store after its purge (default 0: deleted at once). On
   * Flink with exactly-once checkpoints, the purge itself waits until a checkpoint in which the
   * window is cleared has completed, so a job restored from its latest checkpoint finds every block
   * its state names, whatever the delay; the delay covers restores from older checkpoints or
   * savepoints taken up to that long before. A delayed purge is recorded in the block store before
   * it is scheduled: a worker that starts this step (after a failure, a restore or a rescale)
   * performs the purges that a stopped one left, at their deadlines. See
   * docs/tiered-window-purges.md.
   */
  public TieredWindow<K, V, O> withPurgeDelay(Duration delay) {
    if (delay == null || delay.isShorterThan(Duration.ZERO)) {
      throw new IllegalArgumentException("the purge delay must be >= 0, but was " + delay);
    }
    return toBuilder().setPurgeDelay(delay).build();
  }

  /**
   * Predictive cleanup (Aion): a window's state is deleted once it is unlikely to receive more late
   * values, rather than at the end of the allowed lateness. Per key, a {@link LatenessModel}
   * records how late every late value comes (including values beyond any bound) and, once it has
   * enough observations, sets the cleanup bound of newly created windows so that a fraction {@code
   * coverage} of late values falls inside it with confidence {@code confidence} (an order-statistic
   * upper confidence bound on the quantile, over the most recent 1,000 or more observations, so it
   * follows a drifting distribution). Until then, and never more than, the bound is the allowed
   * lateness. A window keeps the bound it was created with; its state and blocks are deleted at its
   * end plus that bound.
   *
   * <p>A value that comes after its window's bound is counted in the metric {@code deadLetters}
   * and, with {@link #withDeadLetters()}, handed out as a dead letter: apply that to lose none. The
   * model needs about {@code log(1 − confidence) / log(coverage)} late values per key (299 for 0.99
   * and 0.95) before it moves the bound; its state lives in Beam state and survives checkpoints.
   *
   * <p>Cost: a keyed step in the global window before the windows (a read of a small state cell per
   * value and a write when the value is the latest yet, an append per late value, an estimate over
   * the sample every quarter of the minimum observations).
   *
   * @throws IllegalArgumentException unless both are strictly between 0 and 1
   */
  public TieredWindow<K, V, O> withPredictiveCleanup(double coverage, double confidence) {
    LatenessModel.of(0, coverage, confidence, sampleSize(coverage, confidence)); // validates
    return toBuilder()
        .setPredictiveCleanup(true)
        .setCoverage(coverage)
        .setConfidence(confidence)
        .build();
  }

  /**
   * Aion's staleness trigger: a past window's late panes fire at planned times rather than at each
   * watermark advance after a late value. The staleness of the results between two firings is
   * {@code t·n/(T·N)} (t and n: time and late values since the previous firing; T: the window's
   * cleanup bound; N: its late values); the plan ({@link StalenessPlanner}, from the lateness
   * distribution learned per key, uniform until there is one) has the fewest firings that keep
   * every interval at most {@code bound}, placed so the largest staleness is as low as it can be
   * for that many. A final pane fires at the cleanup bound. A firing happens only if late values
   * came since the previous one, and only at the next planned time after they came.
   *
   * @throws IllegalArgumentException unless {@value StalenessPlanner#MINIMUM_BOUND} ≤ bound ≤ 1
   */
  public TieredWindow<K, V, O> withStalenessBound(double bound) {
    StalenessPlanner.of(bound); // validates
    return toBuilder().setStalenessBound(bound).build();
  }

  /**
   * This transform with a second output: the {@link DeadLetter dead letters}, values too late for a
   * window (beyond the allowed lateness, or beyond a predictive cleanup bound), each with its
   * window, lateness and reason, in the global window. Without it, dead letters are counted (metric
   * {@code deadLetters}, with predictive cleanup) or dropped as Beam drops values beyond the
   * allowed lateness. Needs windows with a start and end ({@code IntervalWindow}: fixed, sliding,
   * calendar).
   */
  public WithDeadLetters<K, V, O> withDeadLetters() {
    return new WithDeadLetters<>(this);
  }

  /** {@link TieredWindow} with its dead letters: see {@link #withDeadLetters()}. */
  public static final class WithDeadLetters<K, V, O>
      extends PTransform<PCollection<KV<K, V>>, Result<K, V, O>> {
    private final TieredWindow<K, V, O> window;

    private WithDeadLetters(TieredWindow<K, V, O> window) {
      this.window = window;
    }

    @Override
    public Result<K, V, O> expand(PCollection<KV<K, V>> input) {
      return window.expand(input, true);
    }

    @Override
    public void populateDisplayData(DisplayData.Builder builder) {
      window.populateDisplayData(builder);
    }
  }

  /** The results of a {@link TieredWindow} and its dead letters. */
  public static final class Result<K, V, O> implements POutput {
    private final PCollection<KV<K, O>> results;
    private final PCollection<DeadLetter<K, V>> deadLetters;

    private Result(PCollection<KV<K, O>> results, PCollection<DeadLetter<K, V>> deadLetters) {
      this.results = results;
      this.deadLetters = deadLetters;
    }

    /** The window function's results, as {@link TieredWindow} outputs them. */
    public PCollection<KV<K, O>> results() {
      return results;
    }

    /** The values too late for a window, in the global window. */
    public PCollection<DeadLetter<K, V>> deadLetters() {
      return deadLetters;
    }

    @Override
    public Pipeline getPipeline() {
      return results.getPipeline();
    }

    @Override
    public Map<TupleTag<?>, PValue> expand() {
      return Map.of(TieredWindowDoFn.results(), results, LatenessGate.deadLetters(), deadLetters);
    }

    @Override
    public void finishSpecifyingOutput(
        String transformName, PInput input, PTransform<?, ?> transform) {}
  }

  private static int sampleSize(double coverage, double confidence) {
    double needed = Math.log1p(-confidence) / Math.log(coverage);
    return (int)
        Math.max(LatenessModel.DEFAULT_SAMPLE_SIZE, Math.min(1 << 20, 4 * Math.ceil(needed)));
  }

  /**
   * The coder of the function's results; needed when it cannot be inferred (the function is a
   * lambda, or its result type has no registered coder).
   */
  public TieredWindow<K, V, O> withOutputCoder(Coder<O> coder) {
    return toBuilder().setOutputCoder(coder).build();
  }

  @Override
  public PCollection<KV<K, O>> expand(PCollection<KV<K, V>> input) {
    return expand(input, predictiveCleanup() || stalenessBound() > 0).results();
  }

  private Result<K, V, O> expand(PCollection<KV<K, V>> input, boolean gated) {
    if (!(input.getCoder() instanceof KvCoder<K, V> kvCoder)) {
      throw new IllegalArgumentException(
          "TieredWindow needs a PCollection<KV> with a KvCoder, but "
              + input
              + " has "
              + input.getCoder());
    }
    Coder<K> keyCoder = kvCoder.getKeyCoder();
    Coder<V> valueCoder = kvCoder.getValueCoder();
    try {
      keyCoder.verifyDeterministic();
    } catch (Coder.NonDeterministicException e) {
      throw new IllegalArgumentException(
          "TieredWindow keeps state per key, so the key coder must be deterministic, but "
              + keyCoder
              + " is not: "
              + e.getMessage(),
          e);
    }
    @SuppressWarnings("unchecked")
    Coder<BoundedWindow> windowCoder = (Coder<BoundedWindow>) windowFn().windowCoder();
    try {
      windowCoder.verifyDeterministic();
    } catch (Coder.NonDeterministicException e) {
      throw new IllegalArgumentException(
          "TieredWindow keeps state per key and window, so the window coder must be"
              + " deterministic, but "
              + windowCoder
              + " of "
              + windowFn()
              + " is not: "
              + e.getMessage(),
          e);
    }
    if (gated
        && !TypeDescriptor.of(IntervalWindow.class)
            .isSupertypeOf(windowFn().getWindowTypeDescriptor())) {
      throw new IllegalArgumentException(
          "TieredWindow's predictive cleanup, staleness bound and dead letters need windows with"
              + " a start and an end (IntervalWindow: fixed, sliding, calendar), but "
              + windowFn()
              + " makes "
              + windowFn().getWindowTypeDescriptor());
    }
    // Each window's state under a key of its own in the global window, where Beam sets no cleanup
    // timer holding the watermark at the window's end until it expires.
    // Named "Window", as the step that put values into the user's windows was: its output's name
    // names the blocks' owner (below), which must not change from one version to the next.
    PCollection<KV<K, V>> global = input.apply("Window", Window.into(new GlobalWindows()));
    // What the steps below judge values by after a restore (WatermarkFloor says why).
    PCollectionView<Long> floor = WatermarkFloor.of(global);
    PCollectionList<DeadLetter<K, V>> deadLetters = PCollectionList.empty(input.getPipeline());
    PCollection<KV<KV<K, BoundedWindow>, Admitted<V>>> keyed;
    if (gated) {
      PCollectionTuple gate =
          global.apply(
              "Gate",
              ParDo.of(new LatenessGate<K, V>(gateSettings(), windowFn(), floor))
                  .withSideInputs(WatermarkFloor.sideInputs(floor))
                  .withOutputTags(
                      LatenessGate.admitted(), TupleTagList.of(LatenessGate.deadLetters())));
      deadLetters =
          deadLetters.and(
              gate.get(LatenessGate.<K, V>deadLetters())
                  .setCoder(DeadLetter.coder(keyCoder, valueCoder))
                  .apply("Gate dead letters", intoGlobalWindow()));
      keyed = gate.get(LatenessGate.<K, V>admitted());
    } else {
      keyed =
          global.apply(
              "Key by window",
              ParDo.of(new KeyByWindow<K, V>(windowFn(), allowedLateness().getMillis())));
    }
    keyed.setCoder(
        KvCoder.of(KvCoder.of(keyCoder, windowCoder), new Admitted.AdmittedCoder<>(valueCoder)));
    // The windowed collection is this step's own: its name (the step's full name and a fixed
    // suffix) is unique in the pipeline and the same in every run of it, so it names the blocks'
    // owner and the purge records' ("purges of " + it + ", shard " + k).
    TieredWindowDoFn.Settings settings =
        new TieredWindowDoFn.Settings(
            global.getName(),
            storeUri(),
            memoryElements(),
            memoryBytes(),
            bootstrapFraction(),
            prestaging(),
            prestageAhead(),
            allowedLateness(),
            purgeDelay());
    PCollectionTuple fired =
        keyed.apply(
            "Fire",
            ParDo.of(
                    new TieredWindowDoFn<K, V, O>(
                        settings, gated, function(), keyCoder, valueCoder, windowCoder, floor))
                .withSideInputs(WatermarkFloor.sideInputs(floor))
                .withOutputTags(
                    TieredWindowDoFn.<K, O>results(),
                    TupleTagList.of(LatenessGate.<K, V>deadLetters())
                        .and(TieredWindowDoFn.purges())));
    fired
        .get(TieredWindowDoFn.purges())
        .setCoder(PurgeBlocksFn.coder())
        .apply("Take over purge records", ParDo.of(new TakeOverShardsFn()))
        .setCoder(PurgeBlocksFn.coder())
        .apply(
            "Purge blocks",
            ParDo.of(PurgeBlocksFn.forRunner(settings, input.getPipeline().getOptions())));
    // The results are in the user's windows, with the allowed lateness a windowed GroupByKey
    // would carry, so that a window downstream keeps their late panes.
    PCollection<KV<K, O>> results =
        fired
            .get(TieredWindowDoFn.<K, O>results())
            .setCoder(KvCoder.of(keyCoder, resultCoder(input)))
            .setWindowingStrategyInternal(resultWindowing());
    Coder<DeadLetter<K, V>> deadLetterCoder = DeadLetter.coder(keyCoder, valueCoder);
    deadLetters =
        deadLetters.and(
            fired
                .get(LatenessGate.<K, V>deadLetters())
                .setCoder(deadLetterCoder)
                .apply("Dead letters", intoGlobalWindow()));
    return new Result<>(
        results,
        deadLetters.apply("All dead letters", Flatten.pCollections()).setCoder(deadLetterCoder));
  }

  @SuppressWarnings("unchecked")
  private WindowingStrategy<?, ?> resultWindowing() {
    // An on-time pane only if non-empty: on Flink a downstream GroupByKey whose input watermark
    // passes a window's end and its expiry in one step (this step's holds can make it do so at the
    // end of the input) fires that window twice, the second time empty, unless told not to
    // (docs/decisions/tiered-window-downstream-differential-on-flink.md).
    return WindowingStrategy.of((WindowFn<Object, BoundedWindow>) windowFn())
        .withAllowedLateness(allowedLateness())
        .withMode(WindowingStrategy.AccumulationMode.ACCUMULATING_FIRED_PANES)
        .withOnTimeBehavior(Window.OnTimeBehavior.FIRE_IF_NON_EMPTY);
  }

  private LatenessGate.Settings gateSettings() {
    long lateness = allowedLateness().getMillis();
    return new LatenessGate.Settings(
        lateness,
        predictiveCleanup()
            ? LatenessModel.of(
                lateness, coverage(), confidence(), sampleSize(coverage(), confidence()))
            : null,
        stalenessBound() > 0 ? StalenessPlanner.of(stalenessBound()) : null);
  }

  private static <T> Window<T> intoGlobalWindow() {
    return Window.<T>into(new GlobalWindows())
        .triggering(DefaultTrigger.of())
        .withAllowedLateness(Duration.ZERO)
        .discardingFiredPanes();
  }

  private Coder<O> resultCoder(PCollection<KV<K, V>> input) {
    if (outputCoder() != null) {
      return outputCoder();
    }
    try {
      TypeDescriptor<O> type =
          TypeDescriptors.extractFromTypeParameters(
              function(),
              WindowFunction.class,
              new TypeVariableExtractor<WindowFunction<K, V, O>, O>() {});
      return input.getPipeline().getCoderRegistry().getCoder(type);
    } catch (CannotProvideCoderException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "TieredWindow cannot infer a coder for the results of "
              + function()
              + " (a lambda's result type is erased); call withOutputCoder(...)",
          e);
    }
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    builder
        .add(DisplayData.item("windowFn", windowFn().getClass()).withLabel("Windows"))
        .include("windowFn", windowFn())
        .add(DisplayData.item("function", function().getClass()).withLabel("Window function"))
        .add(DisplayData.item("allowedLateness", allowedLateness()).withLabel("Allowed lateness"))
        .add(DisplayData.item("store", storeUri()).withLabel("Block store"))
        .add(
            DisplayData.item("memoryElements", memoryElements())
                .withLabel("Memory bucket elements"))
        .add(DisplayData.item("memoryBytes", memoryBytes()).withLabel("Memory bucket bytes"))
        .add(
            DisplayData.item("bootstrapFraction", bootstrapFraction())
                .withLabel("Bootstrap fraction"))
        .add(DisplayData.item("prestaging", prestaging()).withLabel("Pre-staging"))
        .add(DisplayData.item("prestageAhead", prestageAhead()).withLabel("Pre-stage Δt ahead"))
        .add(DisplayData.item("purgeDelay", purgeDelay()).withLabel("Purge delay"))
        .addIfNotDefault(
            DisplayData.item("predictiveCleanup", predictiveCleanup())
                .withLabel("Predictive cleanup"),
            false);
    if (predictiveCleanup()) {
      builder
          .add(DisplayData.item("coverage", coverage()).withLabel("Cleanup coverage"))
          .add(DisplayData.item("confidence", confidence()).withLabel("Cleanup confidence"));
    }
    if (stalenessBound() > 0) {
      builder.add(
          DisplayData.item("stalenessBound", stalenessBound()).withLabel("Staleness bound"));
    }
  }
}
