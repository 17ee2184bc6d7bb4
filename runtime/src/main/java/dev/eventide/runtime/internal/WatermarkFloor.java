package dev.eventide.runtime.internal;

import java.util.List;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.Impulse;
import org.apache.beam.sdk.transforms.Max;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.AfterPane;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.Repeatedly;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.PCollectionView;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * A lower bound of the watermark a step had at its last completed checkpoint, as a singleton side
 * input: what a step that judges elements by its input watermark (late, expired, a dead letter)
 * needs after a restore. Internal to Eventide's modules.
 *
 * <p>Why: Flink checkpoints no watermark. A job restored from a checkpoint starts every operator's
 * input watermark again at the start of time ({@code DoFnOperator#initializeState}), and the source
 * replays what it emitted after the checkpoint before its watermark reaches it, so a step that
 * judges by its input watermark alone takes a replayed straggler for on time (a window it had
 * closed opens again; a dead letter becomes a pane). Per-key state remembers only keys the step
 * holds; this covers every key.
 *
 * <p>How: a stateful step on one key, fed only the collection's watermark (its elements are dropped
 * where they are, so the stream does not move to one worker) and one element of its own to start
 * from, runs an event-time timer loop that outputs the watermark at every advance. A
 * {@code @RequiresStableInput} step hands each value on only once a checkpoint taken after it has
 * completed; the values, combined by {@code Max} in the global window with a pane per value, are
 * the side input. The Flink runner keeps a side input's last value in the operator state of each
 * step that reads it ({@code SideInputHandler} on broadcast state), so a restored step finds there
 * the floor it had at the checkpoint, ready before any element is read again.
 *
 * <p>Judging ({@link Judge}): a step takes the floor it finds while its input watermark is still at
 * the start of time (after a restore: the floor of its checkpoint) and judges by the later of that
 * floor and its input watermark. That never judges an element later than a run without the failure
 * could have: a value W reaches the step only after a checkpoint whose barrier followed W out of
 * the source has completed, so after the step has processed every element that the source emitted
 * before W (any element it processes later was emitted at a watermark of at least W), and after the
 * step's own input watermark has passed W. A run without failure is therefore never changed: while
 * its input watermark is at the start of time, the floor is too. The floor a restored step finds
 * lags the watermark it had at the checkpoint by up to a checkpoint interval and the side input's
 * propagation: a straggler whose window expired within that lag before the restored checkpoint is
 * judged as on time after the restore, as every straggler was before; and a restored step that
 * reads no element before its first watermark judges by its input watermark alone.
 *
 * <p>Only where a restore can happen: on Flink with exactly-once checkpoints (the stable-input step
 * needs them). Elsewhere {@link #of} gives no floor, and a step reads none: a side input costs the
 * DirectRunner a third of a stateful step's time (measured on {@code TieredWindow}'s differential).
 *
 * <p>Use: {@link #of} applies the floor to a judging step's input (null where nothing restores);
 * the step declares {@link #sideInputs} and keeps a transient {@link Judge}, made in
 * {@code @Setup}, which it asks with its input watermark and {@link #read} for every element it
 * judges.
 */
public final class WatermarkFloor<T> extends PTransform<PCollection<T>, PCollectionView<Long>> {

  private WatermarkFloor() {}

  /**
   * The floor of {@code input}'s watermark, applied to its pipeline under the name {@code
   * "WatermarkFloor"} of the enclosing transform; null where nothing restores a checkpoint.
   */
  public static <T> @Nullable PCollectionView<Long> of(PCollection<T> input) {
    FlinkCheckpointing flink = FlinkCheckpointing.of(input.getPipeline().getOptions());
    if (flink == null || !flink.exactlyOnce()) {
      return null;
    }
    flink.enableStableInputDrain();
    // Its start comes from a bounded source of its own, which must not keep the job from ending.
    flink.finishIdleSources();
    return input.apply("WatermarkFloor", new WatermarkFloor<T>());
  }

  /** The side inputs a judging step declares for {@code floor}: none if it is null. */
  public static List<PCollectionView<?>> sideInputs(@Nullable PCollectionView<Long> floor) {
    return floor == null ? List.of() : List.of(floor);
  }

  /** The floor a judging step reads; the start of time if there is none. */
  public static long read(
      DoFn<?, ?>.ProcessContext context, @Nullable PCollectionView<Long> floor) {
    return floor == null ? START_OF_TIME : context.sideInput(floor);
  }

  private static final long START_OF_TIME = BoundedWindow.TIMESTAMP_MIN_VALUE.getMillis();
  private static final long END = GlobalWindow.INSTANCE.maxTimestamp().getMillis();

  @Override
  public PCollectionView<Long> expand(PCollection<T> input) {
    KvCoder<Integer, Long> coder = KvCoder.of(VarIntCoder.of(), VarLongCoder.of());
    PCollection<KV<Integer, Long>> start =
        input
            .getPipeline()
            .apply("Start", Impulse.create())
            .apply("Key the start", ParDo.of(new StartFn()))
            .setCoder(coder);
    PCollection<KV<Integer, Long>> watermarkOnly =
        input
            .apply("Watermark only", ParDo.of(new DropAllFn<T>()))
            .setCoder(coder)
            .apply("Into the global window", Window.into(new GlobalWindows()));
    PCollection<Long> released =
        PCollectionList.of(start)
            .and(watermarkOnly)
            .apply("Start and watermark", Flatten.pCollections())
            .apply("Follow the watermark", ParDo.of(new FollowFn()))
            .setCoder(VarLongCoder.of())
            .apply("After a checkpoint", ParDo.of(new AfterCheckpointFn()))
            .setCoder(VarLongCoder.of());
    // The start of time at once, not after a checkpoint: a step holds back its input until its
    // side input has a value, and judges what it held back by the floor that first comes.
    PCollection<Long> startOfTime =
        input.getPipeline().apply("Start of time", Create.of(START_OF_TIME));
    return PCollectionList.of(startOfTime)
        .and(released)
        .apply("Floors", Flatten.pCollections())
        .apply(
            "A pane per advance",
            Window.<Long>into(new GlobalWindows())
                .triggering(Repeatedly.forever(AfterPane.elementCountAtLeast(1)))
                .withAllowedLateness(Duration.ZERO)
                .accumulatingFiredPanes())
        .apply("Highest", Combine.globally(Max.ofLongs()).asSingletonView());
  }

  /**
   * How a judging step uses the floor: one per instance of its {@code DoFn} (a transient field made
   * in {@code @Setup}), asked for every element it judges.
   */
  public static final class Judge {
    private long restored = START_OF_TIME;

    /**
     * The watermark to judge an element by: the later of {@code inputWatermark} and the floor this
     * instance found while its input watermark was at the start of time.
     */
    public long watermark(long inputWatermark, long floor) {
      if (inputWatermark == START_OF_TIME) {
        restored = Math.max(restored, floor);
      }
      return Math.max(inputWatermark, restored);
    }

    /** {@link #watermark(long, long)} with Beam instants. */
    public Instant watermark(Instant inputWatermark, long floor) {
      return new Instant(watermark(inputWatermark.getMillis(), floor));
    }
  }

  /** Hands each value on once a checkpoint taken after it has completed. */
  private static final class AfterCheckpointFn extends DoFn<Long, Long> {
    @RequiresStableInput
    @ProcessElement
    public void process(@Element Long watermark, OutputReceiver<Long> out) {
      out.output(watermark);
    }
  }

  /** The one element the loop starts from. */
  private static final class StartFn extends DoFn<byte[], KV<Integer, Long>> {
    @ProcessElement
    public void process(OutputReceiver<KV<Integer, Long>> out) {
      out.output(KV.of(0, START_OF_TIME));
    }
  }

  /** Passes its input's watermark on, and nothing else. */
  private static final class DropAllFn<T> extends DoFn<T, KV<Integer, Long>> {
    @ProcessElement
    public void process() {}
  }

  /**
   * From its one element on, outputs the input watermark at every advance, higher values only (its
   * state, restored with a checkpoint, keeps the highest it output).
   */
  private static final class FollowFn extends DoFn<KV<Integer, Long>, Long> {
    // State and timer ids outlive a pipeline (checkpoints, savepoints): keep them. One key per
    // step (0), one value and one timer for the job's life: it does not grow with the stream's
    // keys, and ends with the job (Flink clears global-window state at the final watermark).
    private static final String HIGHEST = "highest";
    private static final String TICK = "tick";

    @StateId(HIGHEST)
    private final StateSpec<ValueState<Long>> highestSpec = StateSpecs.value(VarLongCoder.of());

    @TimerId(TICK)
    private final TimerSpec tickSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    @ProcessElement
    public void process(@StateId(HIGHEST) ValueState<Long> highest, @TimerId(TICK) Timer tick) {
      if (highest.read() != null) {
        return; // the start again (a bounded input read again after a restore)
      }
      highest.write(START_OF_TIME);
      next(tick, tick.getCurrentRelativeTime().getMillis());
    }

    @OnTimer(TICK)
    public void onTick(
        @StateId(HIGHEST) ValueState<Long> highest,
        @TimerId(TICK) Timer tick,
        OutputReceiver<Long> out) {
      long watermark = tick.getCurrentRelativeTime().getMillis();
      Long before = highest.read();
      if (before == null || watermark > before) {
        highest.write(watermark);
        out.output(watermark);
      }
      next(tick, watermark);
    }

    /** At the next advance past {@code watermark}; none once the watermark reaches the end. */
    private static void next(Timer tick, long watermark) {
      if (watermark < END) {
        tick.set(new Instant(Math.max(watermark, START_OF_TIME) + 1));
      }
    }
  }
}
