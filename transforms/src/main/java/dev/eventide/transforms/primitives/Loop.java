package dev.eventide.transforms.primitives;

import dev.eventide.transforms.internal.Checks;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.InstantCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.coders.VoidCoder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.windowing.DefaultTrigger;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The paper's feedback edge (property P3) in Beam, whose pipelines are acyclic: {@code
 * Loop.of(aggregate)} applies a δ-window Aggregate keyed by all attributes to its input <em>and to
 * every output it produces</em>, until it produces nothing, and emits every output.
 *
 * <pre>{@code
 * // Halve an even number again and again: 12 gives 6, then 3, then nothing.
 * Aggregate<Long, Long, Long> halve =
 *     Aggregate.byAllAttributes(
 *             (IntervalWindow window, Long x, List<Long> copies) ->
 *                 x % 2 == 0 ? Optional.of(x / 2) : Optional.<Long>empty())
 *         .withOutputCoder(VarLongCoder.of());
 * PCollection<Long> halvings = numbers.apply(Loop.of(halve).withMaxIterations(64));
 * }</pre>
 *
 * <p>Per tuple value and timestamp τ, the copies that arrive on time are counted until an
 * event-time timer at τ fires; the timer holds the output watermark at τ until the loop has drained
 * (condition C3: the watermark moves on only after every looped result is out). In the firing, f_O
 * runs on the copies, then on its own output, and so on, inside the same firing, so a looped tuple
 * is never late (condition C2). Each looped output is processed on its own: f_O sees the copies of
 * an input that arrived together, never copies from another input's loop. A copy that arrives late
 * (after the watermark passed τ, or in a late pane; within the aggregate's allowed lateness L)
 * loops at once, on its own, as a late element fires a GroupByKey's late pane at once; its outputs
 * are in a late pane, those of the on-time copies in an on-time pane. A tuple and timestamp are
 * forgotten once the watermark passes τ + L, when no copy can come any more; until then nothing but
 * a pending firing holds the watermark, so a long L does not hold back what comes after the loop.
 * Outputs are in δ windows with allowed lateness L.
 *
 * <p>An aggregate that never stops producing fails the pipeline after {@link #withMaxIterations}
 * iterations of one loop (default {@value #DEFAULT_MAX_ITERATIONS}), naming the tuple it started
 * from, instead of spinning forever.
 *
 * <p>Cost: one keyed, stateful step, and one f_O call per looped output.
 */
public final class Loop<T> extends PTransform<PCollection<T>, PCollection<T>> {
  /** Iterations of one loop before it is declared divergent. */
  public static final long DEFAULT_MAX_ITERATIONS = 10_000_000L;

  /**
   * Marks the first output of a firing with the firing's number for its tuple and timestamp (0 for
   * the on-time copies, −1, −2, ... for each late copy), so that an aggregate whose loops would
   * otherwise repeat can keep them apart. {@link Unwrap} uses it; {@link #of} marks nothing.
   */
  @FunctionalInterface
  interface FiringMarker<T> extends java.io.Serializable {
    T mark(T firstOutput, long firing);
  }

  private final Aggregate<T, T, T> aggregate;
  private final long maxIterations;
  private final FiringMarker<T> firingMarker;

  private Loop(Aggregate<T, T, T> aggregate, long maxIterations, FiringMarker<T> firingMarker) {
    this.aggregate = aggregate;
    this.maxIterations = maxIterations;
    this.firingMarker = firingMarker;
  }

  /**
   * Returns a loop of {@code aggregate}, which must be an at-most-one-output Aggregate over δ
   * windows keyed by all attributes ({@link Aggregate#byAllAttributes}).
   *
   * @throws IllegalArgumentException if the aggregate has other windows or is an A+
   */
  public static <T> Loop<T> of(Aggregate<T, T, T> aggregate) {
    if (!aggregate.getWindows().equals(WindowSpec.delta()) || !aggregate.emitsAtMostOne()) {
      throw new IllegalArgumentException(
          "Loop.of needs an Aggregate over δ windows keyed by all attributes that emits at most"
              + " one output (Aggregate.byAllAttributes), but got "
              + aggregate.getWindows()
              + (aggregate.emitsAtMostOne() ? "" : " with multiple outputs (A+)"));
    }
    return new Loop<>(aggregate, DEFAULT_MAX_ITERATIONS, (first, firing) -> first);
  }

  /** Returns the same loop marking the first output of each firing with {@code marker}. */
  Loop<T> markingFirings(FiringMarker<T> marker) {
    return new Loop<>(aggregate, maxIterations, marker);
  }

  /**
   * Returns the same loop failing after {@code maxIterations} iterations of one loop.
   *
   * @throws IllegalArgumentException if {@code maxIterations} is not positive
   */
  public Loop<T> withMaxIterations(long maxIterations) {
    if (maxIterations < 1) {
      throw new IllegalArgumentException("maxIterations must be >= 1, but was " + maxIterations);
    }
    return new Loop<>(aggregate, maxIterations, firingMarker);
  }

  /**
   * Returns this loop followed by {@code last}, an Aggregate over δ windows keyed by all attributes
   * with the loop's allowed lateness, rendered inside the loop's own step: {@code last}'s f_O runs
   * on each output of a firing as the firing emits it, and its outputs take the firing's pane.
   *
   * <p>Equal to applying {@code last} after the loop when no two outputs of the loop are equal
   * tuples at one timestamp, as X's positions are (unique per E output, firing and position): then
   * each instance of {@code last} holds exactly one tuple, which comes on time from an on-time
   * firing, at once from a late one, and never beyond L (the loop emits a late copy while its
   * watermark has not passed τ + L). It saves a keyed step per output. The caller vouches for the
   * uniqueness.
   *
   * @throws IllegalArgumentException if {@code last} is not such an Aggregate
   */
  <OutputT> PTransform<PCollection<T>, PCollection<OutputT>> followedByUniqueOutputsInto(
      Aggregate<T, T, OutputT> last) {
    if (!last.keyedByTuple()
        || !last.emitsAtMostOne()
        || !last.getAllowedLateness().equals(aggregate.getAllowedLateness())) {
      throw new IllegalArgumentException(
          "Loop.followedByUniqueOutputsInto needs an at-most-one-output Aggregate keyed by all"
              + " attributes with the loop's allowed lateness "
              + aggregate.getAllowedLateness()
              + ", but got "
              + last);
    }
    return new LoopThen<>(this, last);
  }

  /** {@link #followedByUniqueOutputsInto}: the loop's step emitting through the last Aggregate. */
  private static final class LoopThen<T, OutputT>
      extends PTransform<PCollection<T>, PCollection<OutputT>> {
    private final Loop<T> loop;
    private final Aggregate<T, T, OutputT> last;

    LoopThen(Loop<T> loop, Aggregate<T, T, OutputT> last) {
      this.loop = loop;
      this.last = last;
    }

    @Override
    public PCollection<OutputT> expand(PCollection<T> input) {
      return loop.render(input, last.outputFn(), last.outputCoder());
    }

    @Override
    public void populateDisplayData(DisplayData.Builder builder) {
      super.populateDisplayData(builder);
      loop.populateDisplayData(builder);
    }
  }

  @Override
  public PCollection<T> expand(PCollection<T> input) {
    return render(
        input, (window, output, copies) -> Collections.singletonList(output), tupleCoder(input));
  }

  /** The aggregate's tuple coder: the one it was given, else the input's. */
  private Coder<T> tupleCoder(PCollection<T> input) {
    Coder<T> given = aggregate.keyCoder();
    if (given != null) {
      return given;
    }
    Checks.requireDeterministic(input.getCoder(), "the loop's input coder");
    return input.getCoder();
  }

  /** The loop's step, passing each output through {@code emitFn} (f_O of a following Aggregate). */
  private <OutputT> PCollection<OutputT> render(
      PCollection<T> input,
      Aggregate.MultiWindowFunction<T, T, OutputT> emitFn,
      Coder<OutputT> outputCoder) {
    Coder<T> tupleCoder = tupleCoder(input);
    Duration lateness = aggregate.getAllowedLateness();
    // Keyed by tuple and timestamp in the global window rather than by tuple in δ windows: Beam
    // holds a stateful step's output watermark at each live window's end until the window
    // expires, which would hold everything downstream back by L. The loop keeps its own expiry.
    return input
        .apply("GlobalWindow", intoGlobalWindow())
        .apply("KeyByAllAttributesAndTimestamp", ParDo.of(new KeyByTupleAndTimestampFn<T>()))
        .setCoder(KvCoder.of(KvCoder.of(tupleCoder, InstantCoder.of()), VoidCoder.of()))
        .apply(
            "IterateUntilEmpty",
            ParDo.of(
                new LoopFn<>(aggregate.outputFn(), emitFn, lateness, maxIterations, firingMarker)))
        .setCoder(outputCoder)
        .apply("DeltaWindows", intoDeltaWindows(lateness));
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    builder
        .add(DisplayData.item("allowedLateness", aggregate.getAllowedLateness()).withLabel("L"))
        .add(DisplayData.item("maxIterations", maxIterations));
  }

  /** Into the global window, where a step keyed by tuple and timestamp keeps its state. */
  static <T> Window<T> intoGlobalWindow() {
    return Window.<T>into(new GlobalWindows())
        .triggering(DefaultTrigger.of())
        .withAllowedLateness(Duration.ZERO)
        .discardingFiredPanes();
  }

  /** Back into δ windows with allowed lateness L, as a δ-window GroupByKey's outputs are. */
  static <T> Window<T> intoDeltaWindows(Duration lateness) {
    return Window.<T>into(WindowSpec.delta().windowFn())
        .triggering(DefaultTrigger.of())
        .withAllowedLateness(lateness)
        .discardingFiredPanes();
  }

  static final class KeyByTupleAndTimestampFn<T> extends DoFn<T, KV<KV<T, Instant>, Void>> {
    @ProcessElement
    public void process(
        @Element T tuple,
        @Timestamp Instant timestamp,
        OutputReceiver<KV<KV<T, Instant>, Void>> out) {
      out.output(KV.of(KV.of(tuple, timestamp), null));
    }
  }

  private static final class LoopFn<T, OutputT> extends DoFn<KV<KV<T, Instant>, Void>, OutputT> {
    // How many on-time copies of the key's tuple and timestamp wait for the firing at τ.
    private static final String COPIES = "copies";
    // How many late copies of the key's tuple and timestamp have looped.
    private static final String LATE_LOOPS = "lateLoops";
    // Fires the loop of the on-time copies at τ, holding the output watermark there (C3).
    private static final String FIRE = "fire";
    // Forgets a key's late loops once no copy can come any more (τ + L), holding nothing.
    private static final String EXPIRE = "expire";

    @StateId(COPIES)
    private final StateSpec<ValueState<Long>> copiesSpec = StateSpecs.value(VarLongCoder.of());

    @StateId(LATE_LOOPS)
    private final StateSpec<ValueState<Long>> lateLoopsSpec = StateSpecs.value(VarLongCoder.of());

    @TimerId(FIRE)
    private final TimerSpec fireSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    @TimerId(EXPIRE)
    private final TimerSpec expireSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    private final Aggregate.MultiWindowFunction<T, T, T> outputFn;
    private final Aggregate.MultiWindowFunction<T, T, OutputT> emitFn;
    private final Duration lateness;
    private final long maxIterations;
    private final FiringMarker<T> firingMarker;
    private final Counter iterations = TransformMetrics.loopIterations();
    private final Counter keys = TransformMetrics.keysHoldingState();

    LoopFn(
        Aggregate.MultiWindowFunction<T, T, T> outputFn,
        Aggregate.MultiWindowFunction<T, T, OutputT> emitFn,
        Duration lateness,
        long maxIterations,
        FiringMarker<T> firingMarker) {
      this.outputFn = outputFn;
      this.emitFn = emitFn;
      this.lateness = lateness;
      this.maxIterations = maxIterations;
      this.firingMarker = firingMarker;
    }

    @ProcessElement
    public void process(
        @Element KV<KV<T, Instant>, Void> copy,
        PaneInfo pane,
        @StateId(COPIES) ValueState<Long> copies,
        @StateId(LATE_LOOPS) ValueState<Long> lateLoops,
        @TimerId(FIRE) Timer fire,
        @TimerId(EXPIRE) Timer expire,
        OutputReceiver<OutputT> out) {
      T tuple = copy.getKey().getKey();
      Instant tau = copy.getKey().getValue();
      if (pane.getTiming() == PaneInfo.Timing.LATE || fire.getCurrentRelativeTime().isAfter(tau)) {
        // A late copy loops at once, as a late element fires a GroupByKey's late pane at once.
        Long looped = lateLoops.read();
        if (looped == null) {
          keys.inc();
        }
        long loop = looped == null ? 1 : looped + 1;
        lateLoops.write(loop);
        expire.withNoOutputTimestamp().set(expiry(tau));
        iterate(tuple, tau, 1, -loop, PaneInfo.Timing.LATE, loop, out);
        return;
      }
      Long seen = copies.read();
      if (seen == null) {
        // No expiry timer: the firing clears the count, and only a late copy leaves state.
        keys.inc();
        fire.withOutputTimestamp(tau).set(tau);
        seen = 0L;
      }
      copies.write(seen + 1);
    }

    @OnTimer(FIRE)
    public void onFire(
        @Key KV<T, Instant> key,
        @StateId(COPIES) ValueState<Long> copies,
        OutputReceiver<OutputT> out) {
      long count = copies.read();
      copies.clear();
      keys.dec();
      iterate(key.getKey(), key.getValue(), count, 0, PaneInfo.Timing.ON_TIME, 0, out);
    }

    @OnTimer(EXPIRE)
    public void onExpire(@StateId(LATE_LOOPS) ValueState<Long> lateLoops) {
      lateLoops.clear();
      keys.dec();
    }

    /**
     * τ + L + δ, clamped to the end of the global window: a lateness that reaches past the end of
     * time ("never drop") keeps the key until then, as Beam clamps a window's expiry.
     */
    private Instant expiry(Instant tau) {
      long last = GlobalWindow.INSTANCE.maxTimestamp().getMillis();
      long room = last - tau.getMillis() - WindowSpec.DELTA.getMillis();
      return lateness.getMillis() >= room
          ? GlobalWindow.INSTANCE.maxTimestamp()
          : tau.plus(lateness).plus(WindowSpec.DELTA);
    }

    /** f_O on the copies, then on each output until there is none, emitting every output. */
    private void iterate(
        T tuple,
        Instant tau,
        long count,
        long firing,
        PaneInfo.Timing timing,
        long paneIndex,
        OutputReceiver<OutputT> out) {
      if (count > Integer.MAX_VALUE) {
        throw new IllegalStateException(
            String.format(
                "Loop met %d copies of one tuple at %s, more than a list can hold: %s",
                count, tau, tuple));
      }
      IntervalWindow window = new IntervalWindow(tau, WindowSpec.DELTA);
      PaneInfo pane = PaneInfo.createPane(paneIndex == 0, false, timing, paneIndex, paneIndex);
      T next = firstOrNull(outputFn.apply(window, tuple, Collections.nCopies((int) count, tuple)));
      if (next != null) {
        next = firingMarker.mark(next, firing);
      }
      long iteration = 1;
      for (; next != null; iteration++) {
        if (iteration > maxIterations) {
          throw new IllegalStateException(
              String.format(
                  "Loop did not converge: its aggregate was still producing outputs after %d"
                      + " iterations, starting from %s at %s. An aggregate under Loop must"
                      + " eventually produce nothing; if this many iterations are expected, raise"
                      + " the limit with Loop.withMaxIterations.",
                  maxIterations, tuple, tau));
        }
        for (OutputT output : emitFn.apply(window, next, List.of(next))) {
          out.builder(output).setPaneInfo(pane).output();
        }
        next = firstOrNull(outputFn.apply(window, next, List.of(next)));
      }
      iterations.inc(iteration - 1); // once per firing: a metric update per output costs
    }

    private static <T> T firstOrNull(Iterable<T> outputs) {
      Iterator<T> it = outputs.iterator();
      return it.hasNext() ? it.next() : null;
    }
  }
}
