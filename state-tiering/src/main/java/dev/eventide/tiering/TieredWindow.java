package dev.eventide.tiering;

import com.google.auto.value.AutoValue;
import dev.eventide.tiering.store.BlockStores;
import java.nio.file.Path;
import org.apache.beam.sdk.coders.CannotProvideCoderException;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.apache.beam.sdk.values.TypeDescriptors.TypeVariableExtractor;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;

/**
 * Windows with long allowed lateness whose state does not stay on the heap (the Aion paper on
 * Beam): a {@link WindowFunction} of all of a window's values, per key, fired on time when the
 * watermark passes the window's end and again when late values arrive, up to the allowed lateness.
 *
 * <pre>{@code
 * PCollection<KV<String, Double>> medians = readings.apply(
 *     TieredWindow.of(FixedWindows.of(Duration.standardMinutes(1)), (key, window, values) -> median(values))
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
 * per bundle.
 *
 * <p>What differs is where the values live. A window's values go to Beam state (the memory bucket,
 * bounded by {@link #withMemoryBucket}); at the window's end, after its on-time pane, they move to
 * blocks in a block store ({@link #withStore}: a local directory by default, or Google Cloud
 * Storage), keeping only the {@link #withBootstrapFraction bootstrap fraction} in memory. The first
 * late value of a destaged window starts reading its blocks back ({@link #withPrestaging
 * pre-staging}), so they are on hand when the late pane fires at the next watermark advance. At the
 * end of the allowed lateness the window's blocks are deleted.
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
 * <p>Metrics (namespace {@value TieringMetrics#NAMESPACE}): {@code bytesDestaged}, {@code
 * bytesStaged}, {@code blocksWritten}, {@code blocksPurged}, {@code prestageHits}, {@code
 * prestageMisses}, {@code firingIoWaitMillis}, {@code onTimePanes}, {@code latePanes}, and the
 * distributions {@code onTimeFiringIoWaitMillis} and {@code lateFiringIoWaitMillis} (what one
 * firing waited on block reads) and {@code memoryBucketBytes} (a window's memory bucket at each
 * firing).
 *
 * @param <K> the key; its coder must be deterministic
 * @param <V> the values
 * @param <O> the window function's result
 */
@AutoValue
public abstract class TieredWindow<K, V, O>
    extends PTransform<PCollection<KV<K, V>>, PCollection<KV<K, O>>> {

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
   * dev.eventide.tiering.store.BlockStoreProvider}.
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

  /** Whether the first late value of a destaged window reads its blocks ahead (default true). */
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
   * How long a window's blocks stay in the store after the end of its allowed lateness (default 0:
   * deleted at once). On a runner that restores checkpoints (Flink), make it longer than a
   * checkpoint interval plus the time to recover, or a window restored from a checkpoint taken
   * before its purge finds its blocks gone (and the job fails saying which block is missing).
   * Deletions still waiting when the JVM stops do not happen; their blocks stay in the store.
   */
  public TieredWindow<K, V, O> withPurgeDelay(Duration delay) {
    if (delay == null || delay.isShorterThan(Duration.ZERO)) {
      throw new IllegalArgumentException("the purge delay must be >= 0, but was " + delay);
    }
    return toBuilder().setPurgeDelay(delay).build();
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
    if (!(input.getCoder() instanceof KvCoder<K, V> kvCoder)) {
      throw new IllegalArgumentException(
          "TieredWindow needs a PCollection<KV> with a KvCoder, but "
              + input
              + " has "
              + input.getCoder());
    }
    Coder<K> keyCoder = kvCoder.getKeyCoder();
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
    PCollection<KV<K, V>> windowed =
        input.apply(
            "Window",
            Window.<KV<K, V>>into(windowFn())
                .withAllowedLateness(allowedLateness())
                .accumulatingFiredPanes());
    // The windowed collection is this step's own: its name (the step's full name and a fixed
    // suffix) is unique in the pipeline and the same in every run of it.
    TieredWindowDoFn.Settings settings =
        new TieredWindowDoFn.Settings(
            windowed.getName(),
            storeUri(),
            memoryElements(),
            memoryBytes(),
            bootstrapFraction(),
            prestaging(),
            prestageAhead(),
            allowedLateness(),
            purgeDelay());
    Coder<? extends BoundedWindow> windowCoder =
        windowed.getWindowingStrategy().getWindowFn().windowCoder();
    return windowed
        .apply(
            "Fire",
            ParDo.of(
                new TieredWindowDoFn<>(
                    settings, function(), keyCoder, kvCoder.getValueCoder(), windowCoder)))
        .setCoder(KvCoder.of(keyCoder, resultCoder(input)));
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
        .add(DisplayData.item("purgeDelay", purgeDelay()).withLabel("Purge delay"));
  }
}
