package dev.eventide.trends.beam;

import dev.eventide.blockstore.BlockStore;
import dev.eventide.blockstore.BlockStores;
import dev.eventide.blockstore.internal.bag.BlockInfo;
import dev.eventide.runtime.internal.WatermarkFloor;
import dev.eventide.trends.Event;
import dev.eventide.trends.Sharing;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.internal.engine.Counters;
import dev.eventide.trends.internal.engine.SlidingWindows;
import dev.eventide.trends.internal.engine.TrendPlan;
import dev.eventide.trends.internal.engine.TrendState;
import dev.eventide.trends.internal.engine.TrendStateCodec;
import dev.eventide.trends.internal.engine.VersionedPlan;
import dev.eventide.trends.internal.engine.WindowResult;
import dev.eventide.trends.query.Query;
import dev.eventide.trends.query.Workload;
import dev.eventide.trends.query.WorkloadChange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.MapState;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTag;
import org.joda.time.Instant;

/**
 * The stateful DoFn of {@link TrendAggregate}, per key (version of the workload, sharing unit,
 * GROUPBY group; {@link RouteFn#key}) in the global window: Beam's own per-window state would hold
 * the output watermark until each window expires, so the windows live in the core state instead and
 * the timers hold only what they must.
 *
 * <ul>
 *   <li>An event later than the time evaluated so far waits in {@code pending} ({@link
 *       PendingEvents}: then in {@code pendingSlices} once a firing has seen it); the {@code fire}
 *       timer is set at the end of the earliest window that needs closing, with an output timestamp
 *       (a watermark hold) at the earliest pending event or open window end.
 *   <li>{@code fire} advances the core states (one per partition of the group, in {@code core}) by
 *       the pending events up to its time, in time order, closes the windows that end by then,
 *       combines the partitions' results and emits one per query and window, in an ON_TIME pane.
 *   <li>Advanced events are kept ({@link RetainedEvents}: in {@code retainedBucket}, and with a
 *       block store in blocks named by {@code retainedManifest}) until every window holding them
 *       has expired ({@code expire} timer, which holds nothing; with blocks, a {@code cleanup}
 *       timer at the end of time deletes what is left): without allowed lateness too, until their
 *       last window has fired. An event whose time is already evaluated waits in {@code
 *       lateArrivals} with the watermark it arrived under; the next {@code fire} (set at once)
 *       rebuilds the core states from the retained events of the windows it touches, emits the
 *       closed windows it entered (those not expired at its arrival) in LATE panes, a window that
 *       has lost its trends with a result of no trends, and keeps the open ones, with it, for their
 *       on-time panes.
 *   <li>An event whose windows had all expired at its arrival goes to the dead letters.
 * </ul>
 *
 * Cost: each event is appended to a bag twice (pending, then retained; with a block store, written
 * once more in a block) and, if a firing sees it before it is due, filed in its slice (a slice is
 * rewritten when later arrivals join it); each firing reads the new arrivals and the slices it
 * reaches, and decodes and encodes the group's core states once: linear in the events, however far
 * ahead of the watermark the input is read. A batch of late events replays the retained events of
 * WITHIN before its earliest event (reading only the blocks that reach that far): proportional to
 * the window, not the stream.
 */
final class TrendAggregateFn extends DoFn<KV<String, List<Event>>, TrendResult> {
  static final TupleTag<TrendResult> RESULTS = new TupleTag<>() {};
  static final TupleTag<DeadLetter> DEAD = new TupleTag<>() {};
  // With changes sent while the job runs: results keyed by version tag and query, to be filtered.
  static final TupleTag<KV<String, Filtered>> VERSIONED = new TupleTag<>() {};

  private static final String PENDING = "pending";
  private static final String PENDING_SLICES = "pendingSlices";
  // Late events with the input watermark at their arrival, which decides the windows they enter.
  private static final String LATE = "lateArrivals";
  private static final String RETAINED_BUCKET = "retainedBucket";
  private static final String RETAINED_MANIFEST = "retainedManifest";
  // Where keys kept their retained events before the tiered bag (read from restored state).
  private static final String RETAINED = "retained";
  private static final String RETAINED_BLOCKS = "retainedBlocks";
  private static final String CORE = "core";
  private static final String PROGRESS = "progress";
  private static final String FIRE = "fire";
  private static final String EXPIRE = "expire";
  private static final String CLEANUP = "cleanup";
  // A cleared key's memory: the time the watermark had reached when its state went, and the timer
  // that forgets it (a restored job's input watermark starts again at the start of time).
  private static final String CLEARED_AT = "clearedAt";
  private static final String FORGET = "forget";

  private static final long LAST_TIMER = GlobalWindow.INSTANCE.maxTimestamp().getMillis();

  @StateId(PENDING)
  private final StateSpec<BagState<Event>> pendingSpec = StateSpecs.bag(EventCoder.of());

  @StateId(PENDING_SLICES)
  private final StateSpec<MapState<Long, List<Event>>> pendingSlicesSpec =
      StateSpecs.map(VarLongCoder.of(), ListCoder.of(EventCoder.of()));

  @StateId(LATE)
  private final StateSpec<BagState<KV<Long, Event>>> lateSpec =
      StateSpecs.bag(KvCoder.of(VarLongCoder.of(), EventCoder.of()));

  @StateId(RETAINED)
  private final StateSpec<BagState<Event>> retainedSpec = StateSpecs.bag(EventCoder.of());

  @StateId(RETAINED_BUCKET)
  private final StateSpec<BagState<byte[]>> retainedBucketSpec =
      StateSpecs.bag(ByteArrayCoder.of());

  @StateId(RETAINED_MANIFEST)
  private final StateSpec<BagState<BlockInfo>> retainedManifestSpec =
      StateSpecs.bag(RetainedBlocks.InfoCoder.of());

  @StateId(RETAINED_BLOCKS)
  private final StateSpec<ValueState<List<RetainedEvents.LegacyBlock>>> retainedBlocksSpec =
      StateSpecs.value(new RetainedEvents.ManifestCoder());

  @StateId(CORE)
  private final StateSpec<ValueState<List<byte[]>>> coreSpec =
      StateSpecs.value(ListCoder.of(ByteArrayCoder.of()));

  @StateId(PROGRESS)
  private final StateSpec<ValueState<Progress>> progressSpec =
      StateSpecs.value(new Progress.Coder());

  @TimerId(FIRE)
  private final TimerSpec fireSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

  @TimerId(EXPIRE)
  private final TimerSpec expireSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

  @TimerId(CLEANUP)
  private final TimerSpec cleanupSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

  @StateId(CLEARED_AT)
  private final StateSpec<ValueState<Long>> clearedAtSpec = StateSpecs.value(VarLongCoder.of());

  @TimerId(FORGET)
  private final TimerSpec forgetSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

  private final Workload workload;
  private final List<WorkloadChange> changes;
  private final Sharing sharing;
  private final long lateness;
  private final TrendAggregate.Retention retention;
  private final long clearedKeyMemory;
  // Null unless the workload changes while the job runs: then keys read their versions here.
  private final VersionStore liveVersions;
  private final PCollectionView<Long> floor; // null: nothing restores a checkpoint
  private transient WatermarkFloor.Judge judge;

  private transient VersionedPlan versions;
  private transient TrendStateCodec[] codecs;
  private transient BlockStore store;
  private transient BlockStore versionBlocks;
  // The owners of a key's blocks: stable across restarts and savepoints (the queries and the key),
  // so a restored job deletes what its earlier run wrote. Blocks written before the tiered bag
  // have owners of another prefix: neither collects the other's blocks as orphans.
  private transient String ownerPrefix;
  private transient String legacyOwnerPrefix;

  TrendAggregateFn(
      Workload workload,
      List<WorkloadChange> changes,
      Sharing sharing,
      long allowedLatenessMillis,
      TrendAggregate.Retention retention,
      long clearedKeyMemoryMillis,
      VersionStore liveVersions,
      PCollectionView<Long> floor) {
    this.workload = workload;
    this.changes = List.copyOf(changes);
    this.sharing = sharing;
    this.lateness = allowedLatenessMillis;
    this.retention = retention;
    this.clearedKeyMemory = clearedKeyMemoryMillis;
    this.liveVersions = liveVersions;
    this.floor = floor;
  }

  @Setup
  public void setup() throws IOException {
    judge = new WatermarkFloor.Judge();
    versions = VersionedPlan.compile(workload, changes, sharing);
    codecs = new TrendStateCodec[versions.versions()];
    for (int v = 0; v < codecs.length; v++) {
      codecs[v] = TrendStateCodec.of(versions.plan(v));
    }
    if (liveVersions != null) {
      versionBlocks = liveVersions.open();
    }
    if (retention.storeUri() != null) {
      store = RetainedBlocks.counted(BlockStores.open(retention.storeUri()));
      String queries =
          String.join(",", workload.queries().stream().map(Query::name).toList()) + "/";
      ownerPrefix = "trends/" + queries;
      legacyOwnerPrefix = "trend-aggregate/" + queries;
    }
  }

  @Teardown
  public void teardown() throws IOException {
    if (store != null) {
      store.close();
    }
    if (versionBlocks != null) {
      versionBlocks.close();
    }
  }

  @ProcessElement
  public void process(
      @Element KV<String, List<Event>> batch,
      @StateId(PENDING) BagState<Event> pending,
      @StateId(LATE) BagState<KV<Long, Event>> late,
      @StateId(PROGRESS) ValueState<Progress> progress,
      @StateId(CLEARED_AT) ValueState<Long> clearedAt,
      @TimerId(FIRE) Timer fire,
      @TimerId(FORGET) Timer forget,
      ProcessContext context,
      MultiOutputReceiver out) {
    Scope scope = scopeIfKept(batch.getKey());
    if (scope == null) {
      for (Event e : batch.getValue()) {
        deadLetter(
            out,
            e,
            "later than the allowed lateness of "
                + lateness
                + " ms: every window of version "
                + RouteFn.versionTagOf(batch.getKey())
                + " of the workload holding time "
                + e.time()
                + " had expired");
      }
      return;
    }
    clearedAt.readLater();
    Progress read = progress.read();
    Progress p = orNew(read);
    // The watermark as far as the step and the key know it. After a restore Flink's input
    // watermark starts again at the start of time (DoFnOperator#initializeState) and the events
    // after the checkpoint are read again before the first watermark: the floor (WatermarkFloor)
    // puts it where the step stood at the checkpoint, for every key. A timer at T fires once the
    // watermark is past T (both runners), so the key's timers, or once it is cleared its memory,
    // put it past them too. In an undisturbed run the input watermark is never behind either.
    long watermark =
        judge.watermark(
            fire.getCurrentRelativeTime().getMillis(), WatermarkFloor.read(context, floor));
    Long cleared = read == null ? clearedAt.read() : null;
    if (read != null) {
      watermark = Math.max(watermark, saturatedAdd(horizon(read), 1));
    } else if (cleared != null) {
      watermark = Math.max(watermark, saturatedAdd(cleared, 1));
    }
    if (read == null) {
      // A key without state (new, or cleared once nothing was pending) stands where a key that
      // fired at every window end would: evaluated up to the last window end the watermark has
      // passed, expired up to the watermark. A cleared key thus never re-emits an expired window.
      p.evaluatedUpTo = lastEndPassed(scope, watermark);
      p.expiredUpTo = watermark - 1;
    } else if (p.fireAt == Progress.NONE) {
      // No window open and nothing pending (only events kept for lateness): no timer has moved the
      // key on since. It catches up likewise, so that the windows this event is in that the
      // watermark has closed are re-evaluated (if not expired), never fired on time with it.
      p.evaluatedUpTo = Math.max(p.evaluatedUpTo, lastEndPassed(scope, watermark));
    }
    boolean holding = read != null;
    long fireAt = p.fireAt;
    long holdAt = p.holdAt;
    for (Event e : batch.getValue()) {
      long t = e.time();
      // Beam's rule: every window holding t has expired once the watermark passed its end plus the
      // allowed lateness (the key's timers may not have seen that watermark yet).
      boolean expiredByWatermark = expiry(scope, t) < watermark;
      if (expiredByWatermark || expired(scope, t, p)) {
        deadLetter(out, e, scope, t);
        continue;
      }
      if (!holding) {
        holding = true;
        TrendMetrics.KEYS_HOLDING_STATE.inc();
        forgetMemory(clearedAt, forget, watermark);
      }
      if (t <= p.evaluatedUpTo) {
        TrendMetrics.LATE_EVENTS.inc();
        late.add(KV.of(watermark, e));
        fireAt = Math.min(fireAt, p.evaluatedUpTo);
      } else {
        pending.add(e);
        fireAt = Math.min(fireAt, firstEnd(scope, t) - 1);
      }
      holdAt = Math.min(holdAt, t);
    }
    // The fire timer moves earlier if an event must fire by then or hold the output there: once
    // per batch.
    if (fireAt < p.fireAt || holdAt < p.holdAt) {
      p.fireAt = fireAt;
      p.holdAt = holdAt;
      fire.withOutputTimestamp(new Instant(p.holdAt)).set(new Instant(p.fireAt));
      progress.write(p);
    }
  }

  @OnTimer(FIRE)
  public void onFire(
      OnTimerContext c,
      @Key String key,
      @StateId(PENDING) BagState<Event> pendingState,
      @StateId(PENDING_SLICES) MapState<Long, List<Event>> pendingSlices,
      @StateId(LATE) BagState<KV<Long, Event>> lateState,
      @StateId(RETAINED_BUCKET) BagState<byte[]> retainedBucket,
      @StateId(RETAINED_MANIFEST) BagState<BlockInfo> retainedManifest,
      @StateId(RETAINED) BagState<Event> retainedState,
      @StateId(RETAINED_BLOCKS) ValueState<List<RetainedEvents.LegacyBlock>> retainedBlocks,
      @StateId(CORE) ValueState<List<byte[]>> coreState,
      @StateId(PROGRESS) ValueState<Progress> progress,
      @TimerId(FIRE) Timer fire,
      @TimerId(EXPIRE) Timer expire,
      @TimerId(CLEANUP) Timer cleanup,
      @StateId(CLEARED_AT) ValueState<Long> clearedAt,
      @TimerId(FORGET) Timer forget,
      MultiOutputReceiver out) {
    Scope scope = scope(key);
    long t = c.fireTimestamp().getMillis();
    lateState.readLater();
    coreState.readLater();
    Progress p = orNew(progress.read());
    PendingEvents pending =
        new PendingEvents(
            pendingState, pendingSlices, p.pendingSlices, scope.plan.slide(scope.unit));
    pending.readLater(t);
    RetainedEvents retained =
        retained(key, retainedBucket, retainedManifest, retainedState, retainedBlocks, p);
    retained.readLater();
    p.fireAt = Progress.NONE;
    p.holdAt = Progress.NONE;
    Counters counters = new Counters();
    Map<List<Object>, TrendState> states = decode(scope, coreState.read());

    List<KV<Long, Event>> late = list(lateState.read());
    if (!late.isEmpty()) {
      lateState.clear();
      states = reEvaluate(scope, p, states, late, retained, expire, t, counters, out);
    }

    List<Event> due = pending.takeUpTo(t);
    if (!due.isEmpty()) {
      due.sort(Comparator.comparingLong(Event::time));
      advance(scope, states, due, counters);
      // Kept until every window holding them has expired, also without lateness: a late event
      // still enters the windows that are open at its arrival, rebuilt from these.
      retain(scope, due, retained, p, expire, t);
    }
    p.evaluatedUpTo = Math.max(p.evaluatedUpTo, t);
    if (p.expireAfterFire) {
      p.expireAfterFire = false;
      scheduleExpiry(p, t + 1, expire);
    }
    Map<Progress.PaneKey, WindowResult> closed = close(scope, states, p.evaluatedUpTo, counters);
    for (WindowResult r : closed.values()) {
      emit(out, scope, p, r, PaneInfo.Timing.ON_TIME);
    }

    long restMin = pending.earliestFiled();
    long nextEnd = Long.MAX_VALUE;
    for (TrendState s : states.values()) {
      nextEnd = Math.min(nextEnd, scope.plan.nextWindowEnd(s));
    }
    long fireAt =
        Math.min(
            restMin == Long.MAX_VALUE ? Long.MAX_VALUE : firstEnd(scope, restMin) - 1,
            nextEnd == Long.MAX_VALUE ? Long.MAX_VALUE : nextEnd - 1);
    long holdAt = Math.min(restMin, nextEnd == Long.MAX_VALUE ? Long.MAX_VALUE : nextEnd - 1);
    if (fireAt != Long.MAX_VALUE) {
      p.fireAt = fireAt;
      p.holdAt = holdAt;
      fire.withOutputTimestamp(new Instant(holdAt)).set(new Instant(fireAt));
    }
    if (!p.cleanupSet && !retained.noBlocks()) {
      // Holds the output watermark just short of the end of time: Flink clears a global window's
      // state once its output watermark passes it, and this key's blocks must go before that.
      p.cleanupSet = true;
      cleanup.withOutputTimestamp(new Instant(LAST_TIMER)).set(new Instant(LAST_TIMER));
    }
    report(counters);
    if (idle(p, states.isEmpty(), retained)) {
      clear(pendingState, pendingSlices, lateState, retained, coreState, progress, p, cleanup, t);
      remember(horizon(p), clearedAt, forget);
      return;
    }
    coreState.write(encode(scope, states));
    progress.write(p);
  }

  @OnTimer(EXPIRE)
  public void onExpire(
      OnTimerContext c,
      @Key String key,
      @StateId(RETAINED_BUCKET) BagState<byte[]> retainedBucket,
      @StateId(RETAINED_MANIFEST) BagState<BlockInfo> retainedManifest,
      @StateId(RETAINED) BagState<Event> retainedState,
      @StateId(RETAINED_BLOCKS) ValueState<List<RetainedEvents.LegacyBlock>> retainedBlocks,
      @StateId(PROGRESS) ValueState<Progress> progress,
      @StateId(PENDING) BagState<Event> pendingState,
      @StateId(PENDING_SLICES) MapState<Long, List<Event>> pendingSlices,
      @StateId(LATE) BagState<KV<Long, Event>> lateState,
      @StateId(CORE) ValueState<List<byte[]>> coreState,
      @TimerId(EXPIRE) Timer expire,
      @TimerId(CLEANUP) Timer cleanup,
      @StateId(CLEARED_AT) ValueState<Long> clearedAt,
      @TimerId(FORGET) Timer forget) {
    Scope scope = scopeIfKept(key);
    long now = c.fireTimestamp().getMillis();
    if (scope == null) {
      // Changes sent while the job runs: the filter deleted the key's version once every window
      // of it had expired (its watermark may pass this timer, which holds nothing, first), so
      // every event kept here has expired too.
      Progress gone = progress.read();
      if (gone != null) {
        RetainedEvents retained =
            retained(key, retainedBucket, retainedManifest, retainedState, retainedBlocks, gone);
        retained.deleteAllBlocks();
        clear(
            pendingState,
            pendingSlices,
            lateState,
            retained,
            coreState,
            progress,
            gone,
            cleanup,
            now);
        remember(Math.max(horizon(gone), now), clearedAt, forget);
      }
      return;
    }
    coreState.readLater();
    Progress p = orNew(progress.read());
    RetainedEvents retained =
        retained(key, retainedBucket, retainedManifest, retainedState, retainedBlocks, p);
    retained.readLater();
    p.expireAt = Progress.NONE;
    p.expiredUpTo = Math.max(p.expiredUpTo, now);
    // The watermark is past `now`: what expires by then goes, unless a window holding it is still
    // open (a re-evaluation rebuilds open windows from these events); the next fire retries.
    long[] next = {Long.MAX_VALUE};
    retained.retainInMemory(
        time -> {
          long expiry = expiry(scope, time);
          if (expiry <= now && lastEnd(scope, time) - 1 <= p.evaluatedUpTo) {
            return false;
          }
          if (expiry > now) {
            next[0] = Math.min(next[0], expiry);
          } else {
            p.expireAfterFire = true;
          }
          return true;
        });
    // Blocks go whole, once their newest event's windows are gone (and the purge delay is over).
    retained.deleteBlocks(
        maxTime ->
            saturatedAdd(expiry(scope, maxTime), retention.purgeDelayMillis()) <= now
                && lastEnd(scope, maxTime) - 1 <= p.evaluatedUpTo);
    for (long maxTime : retained.blockMaxTimes()) {
      long expiry = saturatedAdd(expiry(scope, maxTime), retention.purgeDelayMillis());
      if (expiry > now) {
        next[0] = Math.min(next[0], expiry);
      } else {
        p.expireAfterFire = true;
      }
    }
    SlidingWindows windows = scope.plan.windows(scope.unit);
    Iterator<Progress.PaneKey> panes = p.panes.keySet().iterator();
    while (panes.hasNext()) {
      long expiry = saturatedAdd(windows.endOf(panes.next().windowStart()) - 1, lateness);
      if (expiry <= now) {
        panes.remove();
      } else {
        next[0] = Math.min(next[0], expiry);
      }
    }
    if (next[0] != Long.MAX_VALUE) {
      scheduleExpiry(p, next[0], expire);
    }
    List<byte[]> core = coreState.read();
    if (idle(p, core == null || core.isEmpty(), retained)) {
      clear(pendingState, pendingSlices, lateState, retained, coreState, progress, p, cleanup, now);
      remember(horizon(p), clearedAt, forget);
      return;
    }
    progress.write(p);
  }

  /**
   * Whether nothing is pending for the key: no event waiting, no open window, nothing kept for
   * lateness (events, blocks, pane counts), no timer to come. Its state can then go whole.
   */
  private static boolean idle(Progress p, boolean noOpenWindows, RetainedEvents retained) {
    return noOpenWindows
        && p.fireAt == Progress.NONE
        && p.expireAt == Progress.NONE
        && p.pendingSlices.isEmpty()
        && p.panes.isEmpty()
        && p.retainedInMemory == 0
        && retained.noBlocks();
  }

  /** Clears all of the key's state: its next event starts afresh, judged by the watermark. */
  private static void clear(
      BagState<Event> pending,
      MapState<Long, List<Event>> pendingSlices,
      BagState<KV<Long, Event>> late,
      RetainedEvents retained,
      ValueState<List<byte[]>> core,
      ValueState<Progress> progress,
      Progress p,
      Timer cleanup,
      long now) {
    pending.clear();
    pendingSlices.clear();
    late.clear();
    retained.clearState();
    core.clear();
    progress.clear();
    if (p.cleanupSet) {
      cancel(cleanup, now);
    }
    TrendMetrics.KEYS_HOLDING_STATE.dec();
  }

  /**
   * Remembers, once the key's state is cleared, the time its timers saw the watermark reach, for
   * {@code clearedKeyMemory} of event time: an event of the key replayed after a restore, when the
   * runner's input watermark has started again, is judged at that time, not at the start of time
   * (and never re-opens a window that had expired).
   */
  private void remember(long watermarkSeen, ValueState<Long> clearedAt, Timer forget) {
    if (clearedKeyMemory == 0) {
      return;
    }
    if (clearedAt.read() == null) {
      TrendMetrics.CLEARED_KEYS_REMEMBERED.inc();
    }
    clearedAt.write(watermarkSeen);
    long forgetAt = Math.min(saturatedAdd(watermarkSeen, clearedKeyMemory), LAST_TIMER);
    forget.withNoOutputTimestamp().set(new Instant(forgetAt));
  }

  /** The key has state again (which knows what its memory knew), or its memory is over. */
  private static void forgetMemory(ValueState<Long> clearedAt, Timer forget, long now) {
    if (clearedAt.read() != null) {
      clearedAt.clear();
      cancel(forget, now);
      TrendMetrics.CLEARED_KEYS_REMEMBERED.dec();
    }
  }

  /**
   * Cancels a timer of a key whose state has gone: moves it to {@code now}, holding nothing, where
   * it fires once and finds nothing to do. {@link Timer#clear()} is not enough: on the Flink runner
   * it deletes nothing ({@code DoFnOperator.FlinkTimerInternals#deleteTimer} looks the timer up by
   * its id, while {@code setTimer} filed it under the timer family and id), so the timer, and its
   * entries in the key's checkpointed state, would stay until it fires, at the end of time for
   * {@code cleanup}: about 130 bytes for every key that ever kept a block. Setting the timer again
   * replaces it on every runner.
   */
  private static void cancel(Timer timer, long now) {
    timer.withNoOutputTimestamp().set(new Instant(now));
  }

  /**
   * The memory is over. The timer is set only with the memory and moved away with it ({@link
   * #cancel}), so a firing while the key has no state counts the memory as gone even if the runner
   * dropped it first: at the end of time Flink clears the global window's state, possibly before
   * this timer fires. A firing while the key has state again is a cancelled one.
   */
  @OnTimer(FORGET)
  public void onForget(
      @StateId(PROGRESS) ValueState<Progress> progress,
      @StateId(CLEARED_AT) ValueState<Long> clearedAt) {
    if (progress.read() != null) {
      return;
    }
    clearedAt.clear();
    TrendMetrics.CLEARED_KEYS_REMEMBERED.dec();
  }

  /**
   * At the end of time every window has expired: the key's blocks go, whatever is left of them. A
   * cancelled cleanup (fired before the end of time) has nothing to do.
   */
  @OnTimer(CLEANUP)
  public void onCleanup(
      OnTimerContext c,
      @Key String key,
      @StateId(RETAINED_BUCKET) BagState<byte[]> retainedBucket,
      @StateId(RETAINED_MANIFEST) BagState<BlockInfo> retainedManifest,
      @StateId(RETAINED) BagState<Event> retainedState,
      @StateId(RETAINED_BLOCKS) ValueState<List<RetainedEvents.LegacyBlock>> retainedBlocks,
      @StateId(PROGRESS) ValueState<Progress> progress) {
    if (c.fireTimestamp().getMillis() < LAST_TIMER) {
      return;
    }
    Progress p = orNew(progress.read());
    RetainedEvents retained =
        retained(key, retainedBucket, retainedManifest, retainedState, retainedBlocks, p);
    retained.deleteAllBlocks();
    retained.clearState();
    progress.write(p);
  }

  /**
   * Rebuilds the group's core states from the retained events of every window a late event is in,
   * emits the closed ones that are not expired in LATE panes and returns the rebuilt states (the
   * current ones when every late event has expired by now).
   */
  private Map<List<Object>, TrendState> reEvaluate(
      Scope scope,
      Progress p,
      Map<List<Object>, TrendState> current,
      List<KV<Long, Event>> late,
      RetainedEvents retained,
      Timer expire,
      long fireTime,
      Counters counters,
      MultiOutputReceiver out) {
    long horizon = horizon(p);
    List<Event> accepted = new ArrayList<>();
    List<KV<Long, Event>> acceptedArrivals = new ArrayList<>();
    for (KV<Long, Event> arrival : late) {
      Event e = arrival.getValue();
      if (expired(scope, e.time(), p)) {
        deadLetter(out, e, scope, e.time());
      } else {
        accepted.add(e);
        acceptedArrivals.add(arrival);
      }
    }
    if (accepted.isEmpty()) {
      return current; // all of them expired while they waited: nothing to re-evaluate
    }
    long from =
        accepted.stream().mapToLong(Event::time).min().getAsLong()
            - scope.plan.within(scope.unit)
            + 1;
    List<Event> replay = retained.from(from);
    replay.addAll(accepted);
    retain(scope, accepted, retained, p, expire, fireTime);
    TrendMetrics.RE_EVALUATIONS.inc();
    replay.sort(Comparator.comparingLong(Event::time));
    Map<List<Object>, TrendState> states = new LinkedHashMap<>();
    advance(scope, states, replay, counters);
    Map<Progress.PaneKey, WindowResult> closed = close(scope, states, p.evaluatedUpTo, counters);
    // Windows a late event entered (not expired at its arrival), closed and not expired since:
    // their results changed (or vanished). A window that had expired when the event arrived keeps
    // its result, although the rebuilt states count the event in it too.
    SlidingWindows windows = scope.plan.windows(scope.unit);
    List<Object> group = null;
    Set<Progress.PaneKey> touched = new LinkedHashSet<>();
    for (KV<Long, Event> arrival : acceptedArrivals) {
      Event e = arrival.getValue();
      long arrivedAt = arrival.getKey();
      long first = windows.firstIndex(e.time());
      for (long k = windows.lastIndex(e.time()); k >= first; k--) {
        long s = windows.start(k);
        long end = windows.end(k);
        long windowExpiry = saturatedAdd(end - 1, lateness);
        if (end - 1 <= p.evaluatedUpTo && windowExpiry >= arrivedAt && windowExpiry > horizon) {
          for (String q : scope.plan.queryNames(scope.unit)) {
            touched.add(new Progress.PaneKey(s, q));
          }
        }
      }
      if (group == null) {
        group = groupOf(e, scope);
      }
    }
    for (Progress.PaneKey k : touched) {
      WindowResult r = closed.get(k);
      if (r == null && p.panes.containsKey(k)) {
        r = scope.plan.noTrends(k.query(), group, k.windowStart(), windows.endOf(k.windowStart()));
      }
      if (r != null) {
        emit(out, scope, p, r, PaneInfo.Timing.LATE);
      }
    }
    return states;
  }

  /**
   * Keeps events for re-evaluation until their windows expire, and sets the expire timer; at a
   * timer that fired at {@code now}. An event whose every window is evaluated and expired by then
   * is not kept: a late event for those windows is refused, and the next expiry would remove it
   * unread (tumbling windows without lateness: every event, once its window fires).
   */
  private void retain(
      Scope scope,
      List<Event> events,
      RetainedEvents retained,
      Progress p,
      Timer expire,
      long now) {
    long evaluatedUpTo = Math.max(p.evaluatedUpTo, now);
    List<Event> kept = new ArrayList<>(events.size());
    long firstExpiry = Long.MAX_VALUE;
    for (Event e : events) {
      long expiry = expiry(scope, e.time());
      if (expiry > now || lastEnd(scope, e.time()) - 1 > evaluatedUpTo) {
        kept.add(e);
        firstExpiry = Math.min(firstExpiry, expiry);
      }
    }
    if (!kept.isEmpty()) {
      retained.add(kept);
      TrendMetrics.EVENTS_RETAINED.inc(kept.size());
      scheduleExpiry(p, firstExpiry, expire);
    }
  }

  private RetainedEvents retained(
      String key,
      BagState<byte[]> bucket,
      BagState<BlockInfo> manifest,
      BagState<Event> legacyBucket,
      ValueState<List<RetainedEvents.LegacyBlock>> legacyManifest,
      Progress p) {
    return new RetainedEvents(
        store,
        ownerPrefix + key,
        legacyOwnerPrefix + key,
        retention.memoryEvents(),
        new RetainedEvents.Cells(bucket, manifest, legacyBucket, legacyManifest),
        p);
  }

  private void advance(
      Scope scope, Map<List<Object>, TrendState> states, List<Event> sorted, Counters counters) {
    Map<List<Object>, List<Event>> byPartition = new LinkedHashMap<>();
    for (Event e : sorted) {
      byPartition
          .computeIfAbsent(scope.plan.partition(scope.unit, e), k -> new ArrayList<>())
          .add(e);
    }
    byPartition.forEach(
        (partition, events) ->
            scope.plan.advance(
                states.computeIfAbsent(partition, k -> scope.newState(k)), events, counters));
  }

  /** Closes the windows that end by {@code upTo + 1}, combining partitions per query and window. */
  private Map<Progress.PaneKey, WindowResult> close(
      Scope scope, Map<List<Object>, TrendState> states, long upTo, Counters counters) {
    Map<Progress.PaneKey, WindowResult> closed = new LinkedHashMap<>();
    long end = upTo == Long.MAX_VALUE ? upTo : upTo + 1;
    Iterator<TrendState> it = states.values().iterator();
    while (it.hasNext()) {
      TrendState s = it.next();
      for (WindowResult r : scope.plan.closeWindows(s, end, counters)) {
        closed.merge(new Progress.PaneKey(r.windowStart(), r.query()), r, WindowResult::combine);
      }
      // Every window a removed query may still give a result for is closed by now.
      scope.versions.retireClosed(scope.version, s, end);
      if (s.isEmpty()) {
        it.remove();
      }
    }
    return closed;
  }

  private void emit(
      MultiOutputReceiver out, Scope scope, Progress p, WindowResult r, PaneInfo.Timing timing) {
    if (!scope.versions.emits(scope.version, r)) {
      return; // its query was removed from the workload before the window ended
    }
    Progress.PaneKey k = new Progress.PaneKey(r.windowStart(), r.query());
    int index = p.panes.getOrDefault(k, 0);
    if (lateness > 0) {
      p.panes.put(k, index + 1);
    }
    PaneInfo pane = PaneInfo.createPane(index == 0, lateness == 0, timing, index, index);
    Instant timestamp = new Instant(r.windowEnd() - 1);
    if (liveVersions != null) {
      // Whether the window is the version's is known where the later versions are.
      out.get(VERSIONED)
          .builder(
              KV.of(
                  ResultFilterFn.key(scope.tag, r.query()),
                  Filtered.result(r.toTrendResult(), pane)))
          .setTimestamp(timestamp)
          .setPaneInfo(pane)
          .output();
    } else {
      out.get(RESULTS)
          .builder(r.toTrendResult())
          .setTimestamp(timestamp)
          .setPaneInfo(pane)
          .output();
    }
    TrendMetrics.WINDOWS_EMITTED.inc();
    if (timing == PaneInfo.Timing.LATE) {
      TrendMetrics.LATE_PANES.inc();
    }
  }

  private void deadLetter(MultiOutputReceiver out, Event e, Scope scope, long t) {
    deadLetter(
        out,
        e,
        "later than the allowed lateness of "
            + lateness
            + " ms: the windows of "
            + String.join(", ", scope.plan.queryNames(scope.unit))
            + " holding time "
            + t
            + " were already evaluated");
  }

  private static void deadLetter(MultiOutputReceiver out, Event e, String reason) {
    TrendMetrics.DEAD_LETTERS.inc();
    out.get(DEAD).outputWithTimestamp(new DeadLetter(e, reason), new Instant(e.time()));
  }

  private List<Object> groupOf(Event e, Scope scope) {
    return scope.plan.group(new TrendPlan.Route(scope.unit, scope.plan.partition(scope.unit, e)));
  }

  private static void scheduleExpiry(Progress p, long at, Timer expire) {
    long when = Math.min(at, LAST_TIMER);
    if (when < p.expireAt) {
      p.expireAt = when;
      expire.withNoOutputTimestamp().set(new Instant(when));
    }
  }

  /** The end of the earliest window of the key's version and unit that holds time t. */
  private long firstEnd(Scope scope, long t) {
    SlidingWindows windows = scope.plan.windows(scope.unit);
    long end = windows.firstEnd(t);
    long from = scope.versions.from(scope.version);
    return from == Long.MIN_VALUE
        ? end
        : Math.max(end, windows.end(windows.firstStartingAtOrAfter(from)));
  }

  /** The end (minus 1 ms) of the last window of the unit that ends by the watermark. */
  private long lastEndPassed(Scope scope, long watermark) {
    long end = scope.plan.windows(scope.unit).lastEndAtOrBefore(watermark);
    return end == Long.MIN_VALUE ? Long.MIN_VALUE : end - 1;
  }

  /**
   * The end of the last window of the key's version and unit that holds time t and can give a
   * result: a version's windows start before the next version's time, and end by the removal of the
   * unit's queries when all of them are removed.
   */
  private long lastEnd(Scope scope, long t) {
    SlidingWindows windows = scope.plan.windows(scope.unit);
    long end = windows.lastEnd(t);
    long until = scope.versions.until(scope.version);
    if (until != Long.MAX_VALUE) {
      end = Math.min(end, windows.end(windows.firstStartingAtOrAfter(until) - 1));
    }
    long useful = scope.versions.lastUsefulEnd(scope.version, scope.unit);
    if (useful != Long.MAX_VALUE) {
      end = Math.min(end, windows.lastEndAtOrBefore(useful));
    }
    return end;
  }

  /**
   * The latest watermark at which a window holding t still accepts late events: Beam's rule, the
   * window's maximum timestamp plus the allowed lateness.
   */
  private long expiry(Scope scope, long t) {
    return saturatedAdd(lastEnd(scope, t) - 1, lateness);
  }

  /** A time the watermark is known to have passed: a timer fired there. */
  private static long horizon(Progress p) {
    return Math.max(p.evaluatedUpTo, p.expiredUpTo);
  }

  /** Whether every window holding t has expired, as far as the key's timers know. */
  private boolean expired(Scope scope, long t, Progress p) {
    return expiry(scope, t) <= horizon(p);
  }

  /** a + b, or {@code Long.MAX_VALUE} where that overflows. */
  static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }

  private Map<List<Object>, TrendState> decode(Scope scope, List<byte[]> encoded) {
    Map<List<Object>, TrendState> states = new LinkedHashMap<>();
    if (encoded != null) {
      for (byte[] bytes : encoded) {
        TrendState s = scope.codec.decode(bytes);
        scope.versions.limit(scope.version, s);
        states.put(s.partition(), s);
      }
    }
    return states;
  }

  private List<byte[]> encode(Scope scope, Map<List<Object>, TrendState> states) {
    List<byte[]> encoded = new ArrayList<>(states.size());
    for (TrendState s : states.values()) {
      encoded.add(scope.codec.encode(s));
    }
    return encoded;
  }

  private static void report(Counters counters) {
    TrendMetrics.SHARED_BURSTS.inc(counters.get("sharedBursts"));
    TrendMetrics.SPLIT_BURSTS.inc(counters.get("splitBursts"));
    TrendMetrics.SNAPSHOTS.inc(counters.get("snapshots"));
  }

  /**
   * The version's plan, and the sharing unit in it, that a key evaluates.
   *
   * @throws IllegalStateException if the version is no more in the store
   */
  private Scope scope(String key) {
    Scope scope = scopeIfKept(key);
    if (scope == null) {
      throw new IllegalStateException(
          "key "
              + key
              + " has state, but its version of the workload is no more in the store "
              + liveVersions.uri()
              + ": raise withPurgeDelay above the event time between two checkpoints plus a"
              + " recovery, or give the job the store its change log wrote to");
    }
    return scope;
  }

  /** {@link #scope}, or null for a version the store no longer keeps: all its windows expired. */
  private Scope scopeIfKept(String key) {
    int unit = RouteFn.unitOf(key);
    if (liveVersions == null) {
      int version = RouteFn.versionOf(key);
      return new Scope(ChangeLogFn.INITIAL, version, unit, versions, codecs[version]);
    }
    String tag = RouteFn.versionTagOf(key);
    if (tag.equals(ChangeLogFn.INITIAL)) {
      return new Scope(tag, 0, unit, versions, codecs[0]);
    }
    VersionStore.Compiled c = liveVersions.compiled(versionBlocks, tag);
    return c == null ? null : new Scope(tag, c.number(), unit, c.plan(), c.codec());
  }

  /**
   * A key's version (its tag, number and plan: with changes sent while the job runs, the version
   * compiled alone) and its sharing unit in it.
   */
  private static final class Scope {
    final String tag;
    final int version;
    final int unit;
    final VersionedPlan versions;
    final TrendPlan plan;
    final TrendStateCodec codec;

    Scope(String tag, int version, int unit, VersionedPlan versions, TrendStateCodec codec) {
      this.tag = tag;
      this.version = version;
      this.unit = unit;
      this.versions = versions;
      this.plan = versions.plan(version);
      this.codec = codec;
    }

    TrendState newState(List<Object> partition) {
      return versions.newState(version, unit, partition);
    }
  }

  private static Progress orNew(Progress p) {
    return p == null ? new Progress() : p;
  }

  private static <T> List<T> list(Iterable<T> items) {
    List<T> list = new ArrayList<>();
    items.forEach(list::add);
    return list;
  }
}
