package dev.eventide.tiering;

import dev.eventide.runtime.internal.WatermarkFloor;
import dev.eventide.runtime.internal.WindowAssignment;
import dev.eventide.tiering.DeadLetter.Reason;
import dev.eventide.tiering.internal.lateness.CleanupSchedule;
import dev.eventide.tiering.internal.lateness.CleanupSchedule.Terms;
import dev.eventide.tiering.internal.lateness.LatenessModel;
import dev.eventide.tiering.internal.lateness.StalenessPlanner;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
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
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTag;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * The step before {@link TieredWindowDoFn} when {@code TieredWindow} learns from late values or
 * hands out dead letters: per key, in the global window, it meets every value with the watermark
 * (which the windowed step after it cannot do for values Beam drops), and for each of the value's
 * windows either admits it, with the window's cleanup bound and the time its late pane fires, or
 * makes it a {@link DeadLetter}.
 *
 * <p>It observes the lateness of every late value (including values beyond any bound) for the
 * {@link LatenessModel}, whose sample lives in two generations of Beam bag state (appended to;
 * copied once when the current generation becomes the previous one), and keeps the key's {@link
 * CleanupSchedule}: the bound and {@link StalenessPlanner} plan for windows that are not created
 * yet. A window keeps its terms for life. The model learns per key.
 *
 * <p>A key's state ends with its windows: the {@code expire} timer, at the expiry of the latest
 * window a value of the key has reached (by the longest bound it may have), clears it, holding no
 * watermark. A key that comes back after that starts again from the allowed lateness, as a new key
 * does; its values are judged by the watermark. The metric {@value
 * TieringMetrics#GATE_KEYS_HOLDING_STATE} counts the keys in between.
 *
 * <p>A value it admits goes out once per admitted window, keyed by its key and that window. It
 * reaches the windowed step before that step's watermark passes the watermark the value met here,
 * so the windowed step never sees a value of a window it has purged.
 */
final class LatenessGate<K, V> extends DoFn<KV<K, V>, KV<KV<K, BoundedWindow>, Admitted<V>>> {

  /** What the gate decides with; {@code model} or {@code planner} null when not asked for. */
  record Settings(
      long allowedLatenessMillis, @Nullable LatenessModel model, @Nullable StalenessPlanner planner)
      implements Serializable {
    boolean learns() {
      return model != null || planner != null;
    }

    int sampleSize() {
      return model != null ? model.sampleSize() : LatenessModel.DEFAULT_SAMPLE_SIZE;
    }

    /** Observations between two estimates: a quarter of the fewest a bound needs. */
    int step() {
      return model != null ? Math.max(1, model.minimumObservations() / 4) : 50;
    }

    /** The terms of windows created before the model has spoken. */
    Terms initial() {
      return new Terms(
          allowedLatenessMillis,
          planner == null ? new long[0] : planner.plan(allowedLatenessMillis, new long[0]));
    }

    Terms estimate(long[] sample) {
      long bound = model == null ? allowedLatenessMillis : model.bound(sample);
      return new Terms(bound, planner == null ? new long[0] : planner.plan(bound, sample));
    }
  }

  private static final String METRICS = TieringMetrics.NAMESPACE;
  private static final Counter LATE_VALUES = Metrics.counter(METRICS, "lateValues");
  private static final Counter DEAD = Metrics.counter(METRICS, "deadLetters");
  private static final Counter KEYS =
      Metrics.counter(METRICS, TieringMetrics.GATE_KEYS_HOLDING_STATE);
  private static final Distribution LATENESS = Metrics.distribution(METRICS, "latenessMillis");
  private static final Distribution CLEANUP_BOUND =
      Metrics.distribution(METRICS, "cleanupBoundMillis");

  // State and timer ids name Beam state that outlives a pipeline: keep them.
  private static final String SCHEDULE = "schedule";
  private static final String CURRENT = "latenessCurrent";
  private static final String PREVIOUS = "latenessPrevious";
  private static final String CLOCK = "clock";
  private static final String EXPIRE = "expire";

  @StateId(SCHEDULE)
  private final StateSpec<ValueState<CleanupSchedule>> scheduleSpec =
      StateSpecs.value(new CleanupScheduleCoder());

  @StateId(CURRENT)
  private final StateSpec<BagState<Long>> currentSpec = StateSpecs.bag(VarLongCoder.of());

  @StateId(PREVIOUS)
  private final StateSpec<BagState<Long>> previousSpec = StateSpecs.bag(VarLongCoder.of());

  /** Never set: it reads the input watermark. */
  @TimerId(CLOCK)
  private final TimerSpec clockSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

  @TimerId(EXPIRE)
  private final TimerSpec expireSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

  private final Settings settings;
  private final WindowFn<?, ?> windowFn;
  private final @Nullable PCollectionView<Long> floor;
  private transient Terms initial;
  private transient WatermarkFloor.Judge judge;

  LatenessGate(
      Settings settings,
      WindowFn<? super KV<K, V>, ?> windowFn,
      @Nullable PCollectionView<Long> floor) {
    this.settings = settings;
    this.windowFn = windowFn;
    this.floor = floor;
  }

  @Setup
  public void setup() {
    initial = settings.initial();
    judge = new WatermarkFloor.Judge();
  }

  @ProcessElement
  public void process(
      @Element KV<K, V> element,
      @Timestamp Instant timestamp,
      @StateId(SCHEDULE) ValueState<CleanupSchedule> scheduleState,
      @StateId(CURRENT) BagState<Long> current,
      @StateId(PREVIOUS) BagState<Long> previous,
      @TimerId(CLOCK) Timer clock,
      @TimerId(EXPIRE) Timer expire,
      ProcessContext context,
      MultiOutputReceiver out)
      throws Exception {
    // Not earlier than the floor: after a restore, a replayed value is judged as before.
    long watermark =
        judge.watermark(
            clock.getCurrentRelativeTime().getMillis(), WatermarkFloor.read(context, floor));
    CleanupSchedule read = scheduleState.read();
    CleanupSchedule schedule = read == null ? CleanupSchedule.EMPTY : read;
    List<KV<KV<K, BoundedWindow>, Admitted<V>>> admitted = new ArrayList<>(2);
    int observations = 0;
    for (BoundedWindow w : WindowAssignment.assign(windowFn, element, timestamp)) {
      IntervalWindow window = (IntervalWindow) w;
      long end = window.maxTimestamp().getMillis();
      long start = window.start().getMillis();
      schedule = schedule.seen(timestamp.getMillis(), end + 1 - start);
      Terms terms = schedule.termsOf(start, initial);
      long lateness = watermark > end ? watermark - end : 0;
      if (lateness > 0) {
        LATE_VALUES.inc();
        LATENESS.update(lateness);
        if (settings.learns()) {
          current.add(lateness);
          observations++;
        }
      }
      if (watermark > expiry(end, terms.cleanupMillis())) {
        boolean beyondAllowed = watermark > expiry(end, settings.allowedLatenessMillis());
        DEAD.inc();
        out.get(deadLetters())
            .output(
                new DeadLetter<>(
                    element.getKey(),
                    element.getValue(),
                    timestamp,
                    window,
                    lateness,
                    terms.cleanupMillis(),
                    beyondAllowed ? Reason.BEYOND_ALLOWED_LATENESS : Reason.BEYOND_CLEANUP_BOUND));
      } else {
        admitted.add(
            KV.of(
                KV.of(element.getKey(), window),
                new Admitted<>(
                    element.getValue(),
                    timestamp.getMillis(),
                    terms.cleanupMillis(),
                    lateness > 0 ? terms.nextExecution(lateness) : 0)));
      }
    }
    if (observations > 0) {
      schedule = learn(schedule.observed(observations), watermark, current, previous);
    }
    if (!schedule.equals(read)) {
      scheduleState.write(schedule);
      long expiry = lastExpiry(schedule);
      if (read == null) {
        KEYS.inc();
      }
      if (read == null || lastExpiry(read) != expiry) {
        expire.withNoOutputTimestamp().set(new Instant(expiry));
      }
    }
    OutputReceiver<KV<KV<K, BoundedWindow>, Admitted<V>>> admittedOut = out.get(admitted());
    for (KV<KV<K, BoundedWindow>, Admitted<V>> a : admitted) {
      long end = a.getKey().getValue().maxTimestamp().getMillis();
      // The value's deadline at the windowed step, as its timestamp (Admitted says why): the
      // window's end for its on-time pane, its expiry for a late pane.
      long deadline = watermark > end ? expiry(end, a.getValue().cleanupMillis()) : end;
      admittedOut.outputWithTimestamp(a, new Instant(deadline));
    }
  }

  /** Never called: the clock is never set, but Beam wants a callback for every timer. */
  @OnTimer(CLOCK)
  public void onClock() {}

  /** Every window of the key has expired: nothing it keeps can be used again. */
  @OnTimer(EXPIRE)
  public void onExpire(
      @StateId(SCHEDULE) ValueState<CleanupSchedule> scheduleState,
      @StateId(CURRENT) BagState<Long> current,
      @StateId(PREVIOUS) BagState<Long> previous) {
    scheduleState.clear();
    current.clear();
    previous.clear();
    KEYS.dec();
  }

  /**
   * When the last window a value of the key reached has expired, by the longest bound any of its
   * windows may have: the windows of a value at {@code maxSeen} end by {@code maxSeen + maxSpan}.
   * The timer fires once the watermark is past it, as {@link #process} then refuses such windows.
   */
  private long lastExpiry(CleanupSchedule schedule) {
    long bound = Math.max(settings.allowedLatenessMillis(), initial.cleanupMillis());
    for (CleanupSchedule.Change change : schedule.changes()) {
      bound = Math.max(bound, change.terms().cleanupMillis());
    }
    long lastEnd =
        schedule.maxSeen() > Long.MAX_VALUE - schedule.maxSpan()
            ? Long.MAX_VALUE
            : schedule.maxSeen() + schedule.maxSpan();
    long expiry = expiry(lastEnd, bound);
    return expiry == GlobalWindow.INSTANCE.maxTimestamp().getMillis() ? expiry : expiry + 1;
  }

  /**
   * A new estimate every {@link Settings#step} observations; a new generation every half sample.
   */
  private CleanupSchedule learn(
      CleanupSchedule schedule, long watermark, BagState<Long> current, BagState<Long> previous) {
    boolean estimate = schedule.sinceUpdate() >= settings.step();
    boolean rollOver = schedule.current() >= settings.sampleSize() / 2;
    if (!estimate && !rollOver) {
      return schedule;
    }
    current.readLater();
    previous.readLater();
    List<Long> newest = new ArrayList<>();
    current.read().forEach(newest::add);
    if (estimate) {
      List<Long> sample = new ArrayList<>(newest);
      previous.read().forEach(sample::add);
      Terms terms = settings.estimate(sample.stream().mapToLong(Long::longValue).toArray());
      CLEANUP_BOUND.update(terms.cleanupMillis());
      schedule =
          schedule.updated(terms, initial).pruned(watermark, settings.allowedLatenessMillis());
    }
    if (rollOver) {
      previous.clear();
      newest.forEach(previous::add);
      current.clear();
      schedule = schedule.rolledOver();
    }
    return schedule;
  }

  /** A window's end plus a bound, no later than the end of the global window (as Beam clamps). */
  static long expiry(long end, long boundMillis) {
    long max = GlobalWindow.INSTANCE.maxTimestamp().getMillis();
    return boundMillis >= max - end ? max : end + boundMillis;
  }

  /** The admitted values' tag (tags are equal by id). */
  static <K, V> TupleTag<KV<KV<K, BoundedWindow>, Admitted<V>>> admitted() {
    return new TupleTag<>("admitted");
  }

  /** The dead letters' tag, here and in {@link TieredWindowDoFn}. */
  static <K, V> TupleTag<DeadLetter<K, V>> deadLetters() {
    return new TupleTag<>("deadLetters");
  }
}
