package dev.eventide.trends.beam;

import dev.eventide.blockstore.BlockStore;
import dev.eventide.runtime.internal.WatermarkFloor;
import dev.eventide.trends.internal.engine.WorkloadVersion;
import dev.eventide.trends.query.Query;
import dev.eventide.trends.query.Workload;
import dev.eventide.trends.query.WorkloadChange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollectionView;
import org.apache.beam.sdk.values.TupleTag;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The change log of a workload changed while the job runs: one key, which holds each change until
 * the changes' watermark has passed its time, applies the changes of each time together to the
 * version in force ({@link WorkloadVersion#next}: refused ones go out with the reason), writes the
 * new version to the {@link VersionStore} and only then sends it, at its time, to every shard of
 * {@link SequencerFn} and, for the results of earlier versions, to {@link ResultFilterFn}: the next
 * version's time to the keys of the version before it, a removal to the keys of the query in every
 * version still giving results. The timer that sends a version holds the watermark at its time, so
 * no step after this one sees the watermark pass a change before the change.
 *
 * <p>A change is late, and refused, when it arrives after the changes' watermark (or a version
 * decided since) passed its time: the versions up to then were decided, and events evaluated,
 * without it. The change log forgets a version once its own watermark has passed the expiry of the
 * version's last windows: a change decided later is later than every window of that version, so it
 * has nothing to say to its filters. (Its block stays: the changes' watermark may be far ahead of
 * the events', whose keys still read it; {@link SequencerFn} deletes it.)
 */
final class ChangeLogFn extends DoFn<KV<Integer, WorkloadChange>, KV<Integer, Sequenced>> {
  static final TupleTag<KV<Integer, Sequenced>> VERSIONS = new TupleTag<>() {};
  static final TupleTag<KV<String, Filtered>> BOUNDS = new TupleTag<>() {};
  static final TupleTag<RefusedChange> REFUSED = new TupleTag<>() {};

  /** The tag of version 0, the workload the job started with (in no store). */
  static final String INITIAL = "0";

  private static final String PENDING = "pending";
  private static final String LIVE = "live";
  private static final String HORIZON = "horizon";
  private static final String DECIDED = "decided";
  private static final String SEND = "send";
  private static final long LAST_TIMER = GlobalWindow.INSTANCE.maxTimestamp().getMillis();

  @StateId(PENDING)
  private final StateSpec<BagState<WorkloadChange>> pendingSpec =
      StateSpecs.bag(WorkloadChangeCoder.of());

  // The versions still giving results, oldest first, the one in force last: tags and versions.
  @StateId(LIVE)
  private final StateSpec<ValueState<List<KV<String, WorkloadVersion>>>> liveSpec =
      StateSpecs.value(
          ListCoder.of(KvCoder.of(StringUtf8Coder.of(), VersionStore.VersionCoder.of())));

  // The time up to which versions are decided: a timer fired once the watermark was past it.
  @StateId(HORIZON)
  private final StateSpec<ValueState<Long>> horizonSpec = StateSpecs.value(VarLongCoder.of());

  // The changes decided (applied or refused) of the versions still live, and the latest refused
  // ones: a change that comes again (a bounded input read again after a restore) is the same
  // change, neither decided nor reported twice.
  @StateId(DECIDED)
  private final StateSpec<ValueState<List<WorkloadChange>>> decidedSpec =
      StateSpecs.value(ListCoder.of(WorkloadChangeCoder.of()));

  @TimerId(SEND)
  private final TimerSpec sendSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

  /** How many refused changes of forgotten versions the change log keeps recognizing. */
  static final int REFUSED_REMEMBERED = 1_000;

  private final Workload initial;
  private final VersionStore versions;
  private final int shards;
  private final long lateness;
  private final PCollectionView<Long> floor; // null: nothing restores a checkpoint
  private transient BlockStore store;
  private transient WatermarkFloor.Judge judge;

  ChangeLogFn(
      Workload initial,
      VersionStore versions,
      int shards,
      long lateness,
      PCollectionView<Long> floor) {
    this.initial = initial;
    this.versions = versions;
    this.shards = shards;
    this.lateness = lateness;
    this.floor = floor;
  }

  @Setup
  public void setup() throws IOException {
    store = versions.open();
    judge = new WatermarkFloor.Judge();
  }

  @Teardown
  public void teardown() throws IOException {
    if (store != null) {
      store.close();
    }
  }

  @ProcessElement
  public void process(
      @Element KV<Integer, WorkloadChange> element,
      @Timestamp Instant timestamp,
      @StateId(PENDING) BagState<WorkloadChange> pending,
      @StateId(HORIZON) ValueState<Long> horizon,
      @StateId(DECIDED) ValueState<List<WorkloadChange>> decidedChanges,
      @TimerId(SEND) Timer send,
      ProcessContext context,
      MultiOutputReceiver out) {
    WorkloadChange change = element.getValue();
    List<WorkloadChange> known = decidedChanges.read();
    if (known != null && known.contains(change)) {
      TrendMetrics.REPEATED_CHANGES.inc();
      return; // decided before: applied, or refused and reported
    }
    for (WorkloadChange c : pending.read()) {
      if (c.equals(change)) {
        TrendMetrics.REPEATED_CHANGES.inc();
        return; // waiting to be decided
      }
    }
    // The watermark of the changes as far as the log knows it: its own input watermark, which a
    // restore starts again at the start of time, the floor the step had at the checkpoint, and the
    // time up to which versions are decided.
    long watermark =
        judge.watermark(
            send.getCurrentRelativeTime().getMillis(), WatermarkFloor.read(context, floor));
    long decided = Math.max(orMin(horizon.read()), watermark);
    String refused = null;
    if (change.time() >= LAST_TIMER) {
      refused = "its time is not before the end of the global window (" + LAST_TIMER + ")";
    } else if (timestamp.getMillis() > change.time()) {
      refused =
          "its element timestamp "
              + timestamp.getMillis()
              + " is after its time: give each change its time as its timestamp";
    } else if (change.time() < decided) {
      refused =
          "late: the changes' watermark had passed "
              + decided
              + " when it arrived, and the workload up to then was decided without it";
    }
    if (refused != null) {
      TrendMetrics.REFUSED_CHANGES.inc();
      out.get(REFUSED).output(new RefusedChange(change, refused));
      remember(decidedChanges, List.of(change));
      return;
    }
    pending.add(change);
    // Held at the earliest pending change: the timer of an earlier one replaces a later one's.
    long earliest = change.time();
    for (WorkloadChange c : pending.read()) {
      earliest = Math.min(earliest, c.time());
    }
    send.withOutputTimestamp(new Instant(earliest)).set(new Instant(earliest));
  }

  @OnTimer(SEND)
  public void onSend(
      @StateId(PENDING) BagState<WorkloadChange> pending,
      @StateId(LIVE) ValueState<List<KV<String, WorkloadVersion>>> liveState,
      @StateId(HORIZON) ValueState<Long> horizon,
      @StateId(DECIDED) ValueState<List<WorkloadChange>> decidedChanges,
      @TimerId(SEND) Timer send,
      MultiOutputReceiver out)
      throws IOException {
    long watermark = send.getCurrentRelativeTime().getMillis();
    List<WorkloadChange> due = new ArrayList<>();
    List<WorkloadChange> later = new ArrayList<>();
    for (WorkloadChange c : pending.read()) {
      (c.time() < watermark ? due : later).add(c);
    }
    due.sort(WorkloadChange.ORDER);
    List<KV<String, WorkloadVersion>> live = liveState.read();
    if (live == null) {
      live = new ArrayList<>(List.of(KV.of(INITIAL, WorkloadVersion.initial(initial))));
    } else {
      live = new ArrayList<>(live);
    }
    for (int i = 0; i < due.size(); ) {
      int j = i;
      while (j < due.size() && due.get(j).time() == due.get(i).time()) {
        j++;
      }
      WorkloadVersion next =
          live.get(live.size() - 1)
              .getValue()
              .next(
                  due.subList(i, j),
                  (c, reason) -> {
                    TrendMetrics.REFUSED_CHANGES.inc();
                    out.get(REFUSED)
                        .outputWithTimestamp(new RefusedChange(c, reason), new Instant(c.time()));
                  });
      if (next != null) {
        // A version without queries has no keys to read it: it needs no block.
        String tag =
            next.workload().queries().isEmpty()
                ? next.number() + ".none"
                : VersionStore.write(store, versions, next);
        announce(live, tag, next, out);
        live.add(KV.of(tag, next));
        TrendMetrics.WORKLOAD_VERSIONS.inc();
      }
      i = j;
    }
    long decided = Math.max(orMin(horizon.read()), watermark);
    horizon.write(decided);
    forgetDone(live, decided);
    liveState.write(live);
    remember(decidedChanges, due);
    forgetDecided(decidedChanges, live.get(0).getValue().from());
    pending.clear();
    if (!later.isEmpty()) {
      later.forEach(pending::add);
      long earliest = later.stream().mapToLong(WorkloadChange::time).min().getAsLong();
      send.withOutputTimestamp(new Instant(earliest)).set(new Instant(earliest));
    }
  }

  /** Sends a new version to every shard, and what it says of earlier versions to their filters. */
  private void announce(
      List<KV<String, WorkloadVersion>> live,
      String tag,
      WorkloadVersion next,
      MultiOutputReceiver out) {
    Instant at = new Instant(next.from());
    for (int shard = 0; shard < shards; shard++) {
      out.get(VERSIONS).outputWithTimestamp(KV.of(shard, Sequenced.of(tag, next)), at);
    }
    KV<String, WorkloadVersion> previous = live.get(live.size() - 1);
    for (Query q : previous.getValue().workload().queries()) {
      out.get(BOUNDS)
          .outputWithTimestamp(
              KV.of(
                  ResultFilterFn.key(previous.getKey(), q.name()),
                  Filtered.until(next.from(), doneAt(next.from(), previous.getValue()))),
              at);
    }
    for (KV<String, WorkloadVersion> v : live) {
      for (Query q : v.getValue().workload().queries()) {
        if (next.removed().contains(q.name())) {
          out.get(BOUNDS)
              .outputWithTimestamp(
                  KV.of(
                      ResultFilterFn.key(v.getKey(), q.name()),
                      Filtered.removedAt(next.from(), doneAt(next.from(), v.getValue()))),
                  at);
        }
      }
    }
  }

  /**
   * The event time after which a version ending at {@code until} gives no more results, to be kept
   * or dropped, and its keys need it no more. They get the events of its windows, which start
   * before {@code until}, so none after {@code until} + WITHIN; not knowing {@code until}, they
   * evaluate every window holding those events, the last of which ends a WITHIN later; and each
   * takes late events for the lateness. The version's longest WITHIN counts for every query: the
   * filter of the first to be done deletes the version's block, which the keys of the others may
   * still read.
   */
  private long doneAt(long until, WorkloadVersion version) {
    long within = longestWithin(version);
    long windows =
        TrendAggregateFn.saturatedAdd(TrendAggregateFn.saturatedAdd(until, within), within);
    return Math.min(TrendAggregateFn.saturatedAdd(windows, lateness), LAST_TIMER - 1);
  }

  private static long longestWithin(WorkloadVersion version) {
    return version.workload().queries().stream().mapToLong(Query::within).max().orElse(0);
  }

  /** Forgets the versions whose windows had all expired by the time decided. */
  private void forgetDone(List<KV<String, WorkloadVersion>> live, long decided) {
    while (live.size() > 1
        && expiry(live.get(0).getValue(), live.get(1).getValue(), lateness) < decided) {
      live.remove(0);
    }
  }

  /** When the last window of a version, ended by the next one, expires. */
  static long expiry(WorkloadVersion version, WorkloadVersion next, long lateness) {
    return TrendAggregateFn.saturatedAdd(
        TrendAggregateFn.saturatedAdd(next.from(), longestWithin(version)), lateness);
  }

  /** Adds {@code changes} to the decided ones. */
  private static void remember(
      ValueState<List<WorkloadChange>> decidedChanges, List<WorkloadChange> changes) {
    if (changes.isEmpty()) {
      return;
    }
    List<WorkloadChange> known = decidedChanges.read();
    List<WorkloadChange> all = known == null ? new ArrayList<>() : new ArrayList<>(known);
    all.addAll(changes);
    decidedChanges.write(all);
  }

  /**
   * Forgets the decided changes of versions forgotten (a change before the oldest live version's
   * start), keeping the latest {@link #REFUSED_REMEMBERED} of them: a change repeated after that is
   * judged again, and refused as late.
   */
  private static void forgetDecided(ValueState<List<WorkloadChange>> decidedChanges, long from) {
    List<WorkloadChange> known = decidedChanges.read();
    if (known == null) {
      return;
    }
    List<WorkloadChange> old = new ArrayList<>();
    List<WorkloadChange> kept = new ArrayList<>();
    for (WorkloadChange c : known) {
      (c.time() < from ? old : kept).add(c);
    }
    if (old.size() <= REFUSED_REMEMBERED) {
      return;
    }
    kept.addAll(0, old.subList(old.size() - REFUSED_REMEMBERED, old.size()));
    decidedChanges.write(kept);
  }

  /** Changes keep their own time as timestamp, which may be after the element's. */
  @Override
  @SuppressWarnings("deprecation")
  public Duration getAllowedTimestampSkew() {
    return Duration.millis(Long.MAX_VALUE);
  }

  private static long orMin(Long value) {
    return value == null ? Long.MIN_VALUE : value;
  }
}
