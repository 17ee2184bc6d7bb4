package dev.eventide.trends.beam;

import dev.eventide.trends.Event;
import dev.eventide.trends.Sharing;
import dev.eventide.trends.internal.engine.TrendPlan;
import dev.eventide.trends.internal.engine.VersionedPlan;
import dev.eventide.trends.internal.engine.WorkloadVersion;
import dev.eventide.trends.io.EventSchema;
import dev.eventide.trends.query.Query;
import dev.eventide.trends.query.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.SortedMapCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
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
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TupleTag;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Routes events by the versions of a workload changed while the job runs, per shard: each shard
 * gets every version from {@link ChangeLogFn} and a share of the events, and holds an event until
 * the watermark has passed its time. The versions are main-input elements whose timestamps the
 * change log's timers held the watermark for, so by then every version in force by the event's time
 * has arrived, and the event is routed exactly as if the versions had been known from the start
 * ({@link VersionedPlan#route}), to keys {@code <version tag>:<unit>/<group>} (version 0 keeps the
 * keys of a job without changes). An event that comes after the watermark passed its time is routed
 * at once. No step waits longer for it than for the watermark: the keys hold events until their
 * windows end anyway. The events a firing releases go to their keys in one batch per key ({@link
 * EventBatches}). Cost: one more shuffle, a state append and a read per event.
 */
final class SequencerFn extends DoFn<KV<Integer, Sequenced>, KV<String, List<Event>>> {
  static final TupleTag<KV<String, List<Event>>> ROUTED = new TupleTag<>() {};
  static final TupleTag<DeadLetter> DEAD = new TupleTag<>() {};

  private static final String VERSIONS = "versions";
  private static final String PENDING = "pending";
  private static final String PENDING_SLICES = "pendingSlices";
  private static final String PENDING_INDEX = "pendingIndex";
  private static final String PENDING_MIN = "pendingMin";
  private static final String HORIZON = "horizon";
  private static final String RELEASE = "release";

  // The versions events may still be routed to, oldest first: tags and versions.
  @StateId(VERSIONS)
  private final StateSpec<ValueState<List<KV<String, WorkloadVersion>>>> versionsSpec =
      StateSpecs.value(
          ListCoder.of(KvCoder.of(StringUtf8Coder.of(), VersionStore.VersionCoder.of())));

  @StateId(PENDING)
  private final StateSpec<BagState<Event>> pendingSpec = StateSpecs.bag(EventCoder.of());

  @StateId(PENDING_SLICES)
  private final StateSpec<MapState<Long, List<Event>>> pendingSlicesSpec =
      StateSpecs.map(VarLongCoder.of(), ListCoder.of(EventCoder.of()));

  // Each slice of pendingSlices and its earliest event time.
  @StateId(PENDING_INDEX)
  private final StateSpec<ValueState<SortedMap<Long, Long>>> pendingIndexSpec =
      StateSpecs.value(SortedMapCoder.of(VarLongCoder.of(), VarLongCoder.of()));

  // The earliest pending event's time, where the release timer holds the watermark.
  @StateId(PENDING_MIN)
  private final StateSpec<ValueState<Long>> pendingMinSpec = StateSpecs.value(VarLongCoder.of());

  // A time the watermark has passed: the release timer fired there.
  @StateId(HORIZON)
  private final StateSpec<ValueState<Long>> horizonSpec = StateSpecs.value(VarLongCoder.of());

  @TimerId(RELEASE)
  private final TimerSpec releaseSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

  private final Workload initial;
  private final Sharing sharing;
  private final long lateness;

  // The routing of the last list of versions seen, compiled once per worker and list.
  private transient String routedFirst;
  private transient String routedLast;
  private transient VersionedPlan routing;
  private transient List<EventSchema> schemas;

  // How far apart the pending events' slices are: the initial workload's shortest SLIDE.
  private final long slice;

  SequencerFn(Workload initial, Sharing sharing, long lateness) {
    this.initial = initial;
    this.sharing = sharing;
    this.lateness = lateness;
    this.slice =
        Math.max(1, initial.queries().stream().mapToLong(Query::slide).min().orElse(1_000));
  }

  @ProcessElement
  public void process(
      @Element KV<Integer, Sequenced> element,
      @StateId(VERSIONS) ValueState<List<KV<String, WorkloadVersion>>> versions,
      @StateId(PENDING) BagState<Event> pending,
      @StateId(PENDING_MIN) ValueState<Long> pendingMin,
      @StateId(HORIZON) ValueState<Long> horizon,
      @TimerId(RELEASE) Timer release,
      MultiOutputReceiver out) {
    Sequenced s = element.getValue();
    if (!s.isEvent()) {
      List<KV<String, WorkloadVersion>> known = orInitial(versions.read());
      if (s.version().number() > known.get(known.size() - 1).getValue().number()) {
        known.add(KV.of(s.tag(), s.version()));
        versions.write(known);
      }
      return;
    }
    Event e = s.event();
    TrendMetrics.EVENTS.inc();
    long watermark = Math.max(orMin(horizon.read()), release.getCurrentRelativeTime().getMillis());
    if (e.time() < watermark) {
      EventBatches routed = new EventBatches();
      route(e, orInitial(versions.read()), routed, out);
      routed.flush(out.get(ROUTED)::outputWithTimestamp);
      return;
    }
    pending.add(e);
    Long min = pendingMin.read();
    if (min == null || e.time() < min) {
      pendingMin.write(e.time());
      release.withOutputTimestamp(new Instant(e.time())).set(new Instant(e.time()));
    }
  }

  @OnTimer(RELEASE)
  public void onRelease(
      @StateId(VERSIONS) ValueState<List<KV<String, WorkloadVersion>>> versions,
      @StateId(PENDING) BagState<Event> pending,
      @StateId(PENDING_SLICES) MapState<Long, List<Event>> pendingSlices,
      @StateId(PENDING_INDEX) ValueState<SortedMap<Long, Long>> pendingIndex,
      @StateId(PENDING_MIN) ValueState<Long> pendingMin,
      @StateId(HORIZON) ValueState<Long> horizon,
      @TimerId(RELEASE) Timer release,
      MultiOutputReceiver out) {
    long watermark = release.getCurrentRelativeTime().getMillis();
    SortedMap<Long, Long> stored = pendingIndex.read();
    TreeMap<Long, Long> index = stored == null ? new TreeMap<>() : new TreeMap<>(stored);
    // Events far ahead of the watermark wait in slices: a firing reads only those it reaches.
    PendingEvents events = new PendingEvents(pending, pendingSlices, index, slice);
    events.readLater(watermark - 1);
    List<KV<String, WorkloadVersion>> known = orInitial(versions.read());
    EventBatches routed = new EventBatches();
    for (Event e : events.takeUpTo(watermark - 1)) {
      route(e, known, routed, out);
      if (routed.full()) {
        routed.flush(out.get(ROUTED)::outputWithTimestamp);
      }
    }
    routed.flush(out.get(ROUTED)::outputWithTimestamp);
    if (index.isEmpty()) {
      pendingIndex.clear();
      pendingMin.clear();
    } else {
      long earliest = events.earliestFiled();
      pendingIndex.write(index);
      pendingMin.write(earliest);
      release.withOutputTimestamp(new Instant(earliest)).set(new Instant(earliest));
    }
    horizon.write(Math.max(orMin(horizon.read()), watermark));
    if (forgetExpired(known, watermark)) {
      versions.write(known);
    }
  }

  /**
   * Routes an event by the versions whose windows may hold it, into the batches of its keys, or
   * sends it to the dead letters.
   */
  private void route(
      Event e,
      List<KV<String, WorkloadVersion>> known,
      EventBatches routed,
      MultiOutputReceiver out) {
    compile(known);
    List<VersionedPlan.Route> routes = routing.route(e);
    String problem = null;
    for (VersionedPlan.Route r : routes) {
      int index = r.version() - routing.firstVersion();
      TrendPlan plan = routing.plan(r.version());
      problem = schemas.get(index).problemWith(e);
      if (problem == null) {
        problem = RouteFn.outsideBeamTime(e.time(), plan, r.unit());
      }
      if (problem != null) {
        break;
      }
    }
    if (problem == null && routes.isEmpty() && e.time() < routing.from(routing.firstVersion())) {
      problem =
          "later than the allowed lateness of "
              + lateness
              + " ms: every window holding time "
              + e.time()
              + " had expired";
    }
    if (problem != null) {
      TrendMetrics.DEAD_LETTERS.inc();
      out.get(DEAD).outputWithTimestamp(new DeadLetter(e, problem), new Instant(e.time()));
      return;
    }
    if (routes.isEmpty()) {
      TrendMetrics.EVENTS_IGNORED.inc();
      return;
    }
    for (VersionedPlan.Route r : routes) {
      TrendPlan plan = routing.plan(r.version());
      List<Object> group = plan.group(new TrendPlan.Route(r.unit(), r.partition()));
      String tag = known.get(r.version() - routing.firstVersion()).getKey();
      routed.add(new EventBatches.Key(r.version() == 0 ? null : tag, r.unit(), group), e);
    }
  }

  /**
   * Compiles the routing of the versions known, unless it is compiled already: consecutive versions
   * are named by their first and last tags.
   */
  private void compile(List<KV<String, WorkloadVersion>> known) {
    String first = known.get(0).getKey();
    String last = known.get(known.size() - 1).getKey();
    if (first.equals(routedFirst) && last.equals(routedLast)) {
      return;
    }
    List<WorkloadVersion> list = known.stream().map(KV::getValue).toList();
    routing = VersionedPlan.of(list, sharing);
    schemas = list.stream().map(v -> EventSchema.of(v.workload())).toList();
    routedFirst = first;
    routedLast = last;
  }

  /**
   * Forgets the oldest versions once every window of theirs has expired (an event for them is then
   * too late for any version); the version in force stays.
   */
  private boolean forgetExpired(List<KV<String, WorkloadVersion>> known, long watermark) {
    boolean forgot = false;
    while (known.size() > 1
        && ChangeLogFn.expiry(known.get(0).getValue(), known.get(1).getValue(), lateness)
            < watermark) {
      known.remove(0);
      forgot = true;
    }
    return forgot;
  }

  private List<KV<String, WorkloadVersion>> orInitial(List<KV<String, WorkloadVersion>> known) {
    return known == null
        ? new ArrayList<>(List.of(KV.of(ChangeLogFn.INITIAL, WorkloadVersion.initial(initial))))
        : new ArrayList<>(known);
  }

  private static long orMin(Long value) {
    return value == null ? Long.MIN_VALUE : value;
  }

  /** Events keep their own time as timestamp, which may be before the input element's. */
  @Override
  @SuppressWarnings("deprecation")
  public Duration getAllowedTimestampSkew() {
    return Duration.millis(Long.MAX_VALUE);
  }

  /** Spreads events over the shards by their type and time, and tags them as events. */
  static final class ShardFn extends DoFn<Event, KV<Integer, Sequenced>> {
    private final int shards;

    ShardFn(int shards) {
      this.shards = shards;
    }

    @ProcessElement
    public void process(@Element Event e, OutputReceiver<KV<Integer, Sequenced>> out) {
      int hash = 31 * e.type().hashCode() + Long.hashCode(e.time());
      out.output(KV.of(Math.floorMod(hash ^ (hash >>> 16), shards), Sequenced.of(e)));
    }
  }
}
