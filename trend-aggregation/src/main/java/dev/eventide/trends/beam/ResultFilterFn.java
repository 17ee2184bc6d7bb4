package dev.eventide.trends.beam;

import dev.eventide.blockstore.BlockStore;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.internal.engine.VersionedPlan;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
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
import org.joda.time.Instant;

/**
 * Keeps, of the results a version's keys give with changes sent while the job runs, those that are
 * the version's: per version and query, a result waits until the watermark has passed its window's
 * end, when every later version that could say otherwise has arrived from {@link ChangeLogFn}
 * (their timers held the watermark for them), and goes on in its own pane unless its window starts
 * at or after the next version's time or ends after its query's removal ({@link
 * VersionedPlan#inForce}). A key's bounds go once nothing of the version's query can come ({@code
 * doneAt}), plus the purge delay; a key of the version in force holds only the results waiting for
 * the watermark.
 *
 * <p>Then the version's block goes from the {@link VersionStore} too (each of its queries' keys
 * tries; the first finds it): the watermark here follows the keys', so every key of the version has
 * fired its last window and expired its events, and every event routed to it has been judged.
 */
final class ResultFilterFn extends DoFn<KV<String, Filtered>, TrendResult> {
  private static final String HELD = "held";
  private static final String HELD_MIN = "heldMin";
  private static final String UNTIL = "until";
  private static final String REMOVED_AT = "removedAt";
  private static final String DONE_AT = "doneAt";
  private static final String RELEASE = "release";
  private static final String DONE = "done";
  private static final long LAST_TIMER = GlobalWindow.INSTANCE.maxTimestamp().getMillis();

  @StateId(HELD)
  private final StateSpec<BagState<Filtered>> heldSpec = StateSpecs.bag(Filtered.Coder.of());

  @StateId(HELD_MIN)
  private final StateSpec<ValueState<Long>> heldMinSpec = StateSpecs.value(VarLongCoder.of());

  @StateId(UNTIL)
  private final StateSpec<ValueState<Long>> untilSpec = StateSpecs.value(VarLongCoder.of());

  @StateId(REMOVED_AT)
  private final StateSpec<ValueState<Long>> removedAtSpec = StateSpecs.value(VarLongCoder.of());

  @StateId(DONE_AT)
  private final StateSpec<ValueState<Long>> doneAtSpec = StateSpecs.value(VarLongCoder.of());

  @TimerId(RELEASE)
  private final TimerSpec releaseSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

  @TimerId(DONE)
  private final TimerSpec doneSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

  private final VersionStore versions;
  private final long purgeDelay;
  private transient BlockStore store;

  ResultFilterFn(VersionStore versions, long purgeDelay) {
    this.versions = versions;
    this.purgeDelay = purgeDelay;
  }

  @Setup
  public void setup() throws IOException {
    store = versions.open();
  }

  @Teardown
  public void teardown() throws IOException {
    if (store != null) {
      store.close();
    }
  }

  /** The key of a version's query. */
  static String key(String versionTag, String query) {
    return versionTag + "/" + query;
  }

  @ProcessElement
  public void process(
      @Element KV<String, Filtered> element,
      @StateId(HELD) BagState<Filtered> held,
      @StateId(HELD_MIN) ValueState<Long> heldMin,
      @StateId(UNTIL) ValueState<Long> until,
      @StateId(REMOVED_AT) ValueState<Long> removedAt,
      @StateId(DONE_AT) ValueState<Long> doneAt,
      @TimerId(RELEASE) Timer release,
      @TimerId(DONE) Timer done,
      OutputReceiver<TrendResult> out) {
    Filtered f = element.getValue();
    if (!f.isResult()) {
      if (f.until() != Long.MAX_VALUE) {
        until.write(Math.min(f.until(), orMax(until.read())));
      }
      if (f.removedAt() != Long.MAX_VALUE) {
        removedAt.write(Math.min(f.removedAt(), orMax(removedAt.read())));
      }
      Long last = doneAt.read();
      if (last == null || f.doneAt() > last) {
        doneAt.write(f.doneAt());
        long at = TrendAggregateFn.saturatedAdd(f.doneAt(), purgeDelay) + 1;
        done.withNoOutputTimestamp().set(new Instant(Math.min(at, LAST_TIMER)));
      }
      return;
    }
    long timestamp = f.result().windowEnd() - 1;
    if (timestamp < release.getCurrentRelativeTime().getMillis()) {
      // A late pane: the watermark has passed its window's end, its bounds are all here.
      decide(f, orMax(until.read()), orMax(removedAt.read()), out);
      return;
    }
    held.add(f);
    Long min = heldMin.read();
    if (min == null || timestamp < min) {
      heldMin.write(timestamp);
      release.withOutputTimestamp(new Instant(timestamp)).set(new Instant(timestamp));
    }
  }

  @OnTimer(RELEASE)
  public void onRelease(
      @StateId(HELD) BagState<Filtered> held,
      @StateId(HELD_MIN) ValueState<Long> heldMin,
      @StateId(UNTIL) ValueState<Long> until,
      @StateId(REMOVED_AT) ValueState<Long> removedAt,
      @TimerId(RELEASE) Timer release,
      OutputReceiver<TrendResult> out) {
    long watermark = release.getCurrentRelativeTime().getMillis();
    long u = orMax(until.read());
    long r = orMax(removedAt.read());
    List<Filtered> later = new ArrayList<>();
    long laterMin = Long.MAX_VALUE;
    for (Filtered f : held.read()) {
      long timestamp = f.result().windowEnd() - 1;
      if (timestamp < watermark) {
        decide(f, u, r, out);
      } else {
        later.add(f);
        laterMin = Math.min(laterMin, timestamp);
      }
    }
    held.clear();
    heldMin.clear();
    if (!later.isEmpty()) {
      later.forEach(held::add);
      heldMin.write(laterMin);
      release.withOutputTimestamp(new Instant(laterMin)).set(new Instant(laterMin));
    }
  }

  /** Nothing more of the version's query can come: what it held goes out, and its bounds go. */
  @OnTimer(DONE)
  public void onDone(
      @Key String key,
      @StateId(HELD) BagState<Filtered> held,
      @StateId(HELD_MIN) ValueState<Long> heldMin,
      @StateId(UNTIL) ValueState<Long> until,
      @StateId(REMOVED_AT) ValueState<Long> removedAt,
      @StateId(DONE_AT) ValueState<Long> doneAt,
      OutputReceiver<TrendResult> out)
      throws IOException {
    long u = orMax(until.read());
    long r = orMax(removedAt.read());
    for (Filtered f : held.read()) {
      decide(f, u, r, out);
    }
    held.clear();
    heldMin.clear();
    until.clear();
    removedAt.clear();
    doneAt.clear();
    String tag = key.substring(0, key.indexOf('/'));
    if (!tag.equals(ChangeLogFn.INITIAL)) {
      VersionStore.delete(store, versions, tag);
    }
  }

  private static void decide(
      Filtered f, long until, long removedAt, OutputReceiver<TrendResult> out) {
    TrendResult r = f.result();
    if (VersionedPlan.inForce(r.windowStart(), r.windowEnd(), until, removedAt)) {
      out.builder(r).setTimestamp(new Instant(r.windowEnd() - 1)).setPaneInfo(f.pane()).output();
    } else {
      TrendMetrics.RESULTS_OUTSIDE_VERSION.inc();
    }
  }

  private static long orMax(Long value) {
    return value == null ? Long.MAX_VALUE : value;
  }
}
