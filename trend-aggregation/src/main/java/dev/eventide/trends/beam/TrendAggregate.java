package dev.eventide.trends.beam;

import dev.eventide.blockstore.BlockStores;
import dev.eventide.runtime.internal.WatermarkFloor;
import dev.eventide.trends.Event;
import dev.eventide.trends.Sharing;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.internal.engine.TrendPlan;
import dev.eventide.trends.internal.engine.VersionedPlan;
import dev.eventide.trends.query.Query;
import dev.eventide.trends.query.Workload;
import dev.eventide.trends.query.WorkloadChange;
import java.io.Serializable;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
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
import org.apache.beam.sdk.values.WindowingStrategy;
import org.joda.time.Duration;

/**
 * Aggregates the event trends of a workload of queries (the HAMLET paper's shared trend
 * aggregation) over a {@code PCollection<Event>}: one {@link TrendResult} per query, window and
 * GROUPBY group with at least one trend, timestamped at the window's end − 1 ms and in the window
 * it describes.
 *
 * <pre>{@code
 * Workload workload = Workload.fromFile(Path.of("rides.queries"));
 * TrendAggregate.Result out =
 *     events.apply(TrendAggregate.of(workload).withAllowedLateness(Duration.standardMinutes(5)));
 * PCollection<TrendResult> results = out.results();         // per query, window and group
 * PCollection<DeadLetter> deadLetters = out.deadLetters();  // what was not aggregated, and why
 * }</pre>
 *
 * <p>An event's time is its {@link Event#time()}; give the input element timestamps equal to it (as
 * {@link TrendEvents#fromRows} does) so that the watermark describes it. Queries that can share a
 * Kleene sub-pattern are evaluated together, sharing each burst when the benefit model says it pays
 * ({@link #withSharing}). Events wait in Beam state until the watermark passes the end of their
 * earliest window, then advance the exact core in time order; a window's results come out when the
 * watermark passes its end, in an ON_TIME pane, and the watermark after this transform is held back
 * only by windows not emitted yet.
 *
 * <p><b>Late events.</b> The watermark at an event's arrival decides, per window, as Beam's
 * windowing does: the event enters each of its windows whose end plus the allowed lateness is not
 * behind that watermark, and no other. A window it enters that has already been emitted comes out
 * again in a LATE pane with its new value (a window left without trends comes out with COUNT 0 and
 * AVG/MIN/MAX null, so the last pane is always right); one it enters that is still open counts it
 * in its on-time pane, also without allowed lateness. A window that had expired keeps its last
 * pane: it never gets another. An event that enters no window (every one has expired) goes to
 * {@link Result#deadLetters()} with the reason, for the queries that read its type, and so does an
 * event lacking an attribute the workload needs. For example, with {@code WITHIN 20 seconds SLIDE 5
 * seconds} and a lateness of 20 s: B at 30 s, the watermark to 64 s, then B at 32 s and at 26 s
 * give [15, 35 s) and [20, 40 s) one on-time pane each (COUNT 1: they expired at 55 s and 60 s),
 * and [25, 45 s) and [30, 50 s) a LATE pane after their on-time one, with COUNT 7 and 3. Without
 * lateness, B at 30 s, the watermark to 36 s, then B at 33 s give [15, 35 s) COUNT 1 and [20, 40
 * s), [25, 45 s), [30, 50 s) COUNT 3, each in one on-time pane.
 *
 * <p>A window's first pane is ON_TIME when the window closes with a result; a window that closed
 * without one and gets its first trend from a late event has a LATE first pane with index 0, as
 * Beam's windowing has it.
 *
 * <p>The events that late events may need are kept until every window holding them has expired
 * (without allowed lateness: until the last one has fired, at most one WITHIN of events per key,
 * and none in tumbling windows): in Beam state by default, or, for windows too large for the state
 * backend's memory, in a block store ({@link #withRetainedEventsIn}). A key's (sharing unit and
 * group) state is cleared once nothing is pending for it: no event waiting, no open window, nothing
 * kept for lateness. A key without state counts as evaluated up to the last window end the
 * watermark has passed, so a group seen again after its state went is judged by the watermark; a
 * cleared key also remembers, for {@link #withClearedKeyMemory} of event time, the watermark it was
 * cleared at, so that the events a restored job replays before its first watermark are judged as
 * they were before the failure. The results' windowing carries the allowed lateness and
 * accumulating panes, as a windowed {@code GroupByKey}'s does, so a window downstream keeps the
 * LATE panes. docs/trend-late-events.md has the rule, its examples and what it costs.
 *
 * <p>Metrics: {@link TrendMetrics}. Cost per event: about the in-process core's plus two or three
 * state appends; a batch of late events replays its windows' events.
 */
public final class TrendAggregate extends PTransform<PCollection<Event>, TrendAggregate.Result> {
  private static final long serialVersionUID = 1L;

  private final Workload workload;
  private final List<WorkloadChange> changes;
  private final Sharing sharing;
  private final Duration allowedLateness;
  private final Retention retention;
  private final Duration clearedKeyMemory;
  // Changes sent while the job runs, and the store of their versions (null: none).
  private final transient PCollection<WorkloadChange> liveChanges;
  private final String versionStoreUri;

  /** How many shards route the events of a workload changed while the job runs. */
  static final int SEQUENCER_SHARDS = 64;

  /** How long a cleared key remembers its watermark by default: 10 minutes of event time. */
  static final Duration DEFAULT_CLEARED_KEY_MEMORY = Duration.standardMinutes(10);

  /** Where the events kept for late re-evaluation go; no store: all in Beam state. */
  record Retention(String storeUri, long memoryEvents, long purgeDelayMillis)
      implements Serializable {
    static final Retention IN_BEAM_STATE = new Retention(null, Long.MAX_VALUE, 0);
  }

  private TrendAggregate(
      Workload workload,
      List<WorkloadChange> changes,
      Sharing sharing,
      Duration allowedLateness,
      Retention retention,
      Duration clearedKeyMemory,
      PCollection<WorkloadChange> liveChanges,
      String versionStoreUri) {
    this.workload = workload;
    this.changes = changes;
    this.sharing = sharing;
    this.allowedLateness = allowedLateness;
    this.retention = retention;
    this.clearedKeyMemory = clearedKeyMemory;
    this.liveChanges = liveChanges;
    this.versionStoreUri = versionStoreUri;
  }

  private TrendAggregate with(
      List<WorkloadChange> changes,
      Sharing sharing,
      Duration allowedLateness,
      Retention retention,
      Duration clearedKeyMemory) {
    return new TrendAggregate(
        workload,
        changes,
        sharing,
        allowedLateness,
        retention,
        clearedKeyMemory,
        liveChanges,
        versionStoreUri);
  }

  /**
   * Aggregates the queries of a workload, sharing dynamically, without allowed lateness.
   *
   * @throws IllegalArgumentException if the workload has no queries or a query cannot be compiled
   */
  public static TrendAggregate of(Workload workload) {
    Objects.requireNonNull(workload, "workload");
    if (workload.queries().isEmpty()) {
      throw new IllegalArgumentException("TrendAggregate needs a workload of at least one query");
    }
    TrendPlan.compile(workload, Sharing.DYNAMIC);
    return new TrendAggregate(
        workload,
        List.of(),
        Sharing.DYNAMIC,
        Duration.ZERO,
        Retention.IN_BEAM_STATE,
        DEFAULT_CLEARED_KEY_MEMORY,
        null,
        null);
  }

  /**
   * Changes the workload while the job runs, on a schedule known when the pipeline is built: each
   * change adds queries (their text) or removes queries (by name) from an event time on. An added
   * query evaluates the windows that start at or after its time; a removed one gives nothing for
   * the windows that end after its time (its late panes of earlier windows still come), and its
   * sums go once those windows are closed; every other query gives exactly what it gives without
   * the changes. Sharing is planned anew for the workload in force from each change (docs/
   * trends-query-language.md, "Changing the workload", has the rules). Each change starts a version
   * whose keys are new: for one WITHIN after a change, an event may be evaluated by the version
   * before it and the one after. Keys of the workload the job started with are those of a job
   * without changes.
   *
   * <pre>{@code
   * TrendAggregate aggregate =
   *     TrendAggregate.of(workload)
   *         .withWorkloadChanges(
   *             List.of(
   *                 WorkloadChange.add(1_700_003_600_000L, "QUERY late_trips RETURN COUNT(*)"
   *                     + " PATTERN SEQ(Request, Travel+) WITHIN 10 minutes"),
   *                 WorkloadChange.remove(1_700_007_200_000L, "pool_trips")));
   * }</pre>
   *
   * @throws IllegalArgumentException naming the first change that does not apply to the workload in
   *     force at its time (its text does not parse, a name already or not running)
   */
  public TrendAggregate withWorkloadChanges(List<WorkloadChange> changes) {
    List<WorkloadChange> copy = List.copyOf(Objects.requireNonNull(changes, "changes"));
    if (liveChanges != null) {
      throw new IllegalArgumentException(BOTH_KINDS_OF_CHANGES);
    }
    VersionedPlan.compile(workload, copy, sharing);
    return with(copy, sharing, allowedLateness, retention, clearedKeyMemory);
  }

  private static final String BOTH_KINDS_OF_CHANGES =
      "a TrendAggregate takes a schedule of changes or changes sent while it runs, not both: send"
          + " the schedule's changes in the PCollection too";

  /**
   * Changes the workload while the job runs, by changes sent in a {@code PCollection}: as {@link
   * #withWorkloadChanges(List)} does for a schedule known when the pipeline is built (the same
   * rules: an added query evaluates the windows that start at or after its time, a removed one
   * gives nothing for the windows that end after it, the other queries give exactly what they give
   * without the changes), whatever order changes and events arrive in. A change applies once the
   * changes' watermark has passed its time; one that does not apply to the workload then in force
   * (its text does not parse, a name already running or not running), or that arrives after that
   * watermark passed its time, goes to {@link Result#refusedChanges()} with the reason, and the job
   * goes on without it.
   *
   * <p>Give each change its time as timestamp ({@code WithTimestamps.of(WorkloadChange::time)}),
   * and the changes a watermark that advances (a source that has no change to send still moves its
   * watermark on): events wait for it, since an event cannot be evaluated before every change up to
   * its time is known, and late events are judged by the lower of the two watermarks. Each version
   * of the workload is written to the block store {@code versionStoreUri} ({@code file:///dir},
   * {@code gs://bucket/prefix}, {@code memory:name} for tests), which every worker must be able to
   * read, before any event is routed to it: a key finds its version there after a restore; a
   * version's block is deleted once its windows have expired (plus {@link #withPurgeDelay the purge
   * delay}). docs/trends-query-language.md, "Changing the workload", has the rules;
   * docs/trend-aggregation.md what it costs.
   *
   * <pre>{@code
   * PCollection<WorkloadChange> changes =
   *     events
   *         .getPipeline()
   *         .apply(Create.of(WorkloadChange.remove(1_700_007_200_000L, "pool_trips")))
   *         .apply(WithTimestamps.of((WorkloadChange c) -> new Instant(c.time())));
   * TrendAggregate.Result out =
   *     events.apply(
   *         TrendAggregate.of(workload).withWorkloadChanges(changes, "file:///var/eventide/versions"));
   * PCollection<RefusedChange> refused = out.refusedChanges();
   * }</pre>
   *
   * @throws IllegalArgumentException if the URI is not a store's, or with a schedule of changes
   */
  public TrendAggregate withWorkloadChanges(
      PCollection<WorkloadChange> changes, String versionStoreUri) {
    Objects.requireNonNull(changes, "changes");
    BlockStores.checkUri(versionStoreUri);
    if (!this.changes.isEmpty()) {
      throw new IllegalArgumentException(BOTH_KINDS_OF_CHANGES);
    }
    return new TrendAggregate(
        workload,
        List.of(),
        sharing,
        allowedLateness,
        retention,
        clearedKeyMemory,
        changes,
        versionStoreUri);
  }

  /** How queries share bursts: DYNAMIC (default, HAMLET), STATIC (always) or NONE. */
  public TrendAggregate withSharing(Sharing sharing) {
    return with(
        changes,
        Objects.requireNonNull(sharing, "sharing"),
        allowedLateness,
        retention,
        clearedKeyMemory);
  }

  /**
   * How long after the end of a window late events still re-evaluate it.
   *
   * @throws IllegalArgumentException if negative
   */
  public TrendAggregate withAllowedLateness(Duration lateness) {
    Objects.requireNonNull(lateness, "lateness");
    if (lateness.getMillis() < 0) {
      throw new IllegalArgumentException("allowed lateness must be >= 0, but was " + lateness);
    }
    return with(changes, sharing, lateness, retention, clearedKeyMemory);
  }

  /**
   * How long, in event time, a key (sharing unit, GROUPBY group) whose state ended remembers the
   * watermark it ended at (default 10 minutes; {@code Duration.ZERO}: not at all). A job restored
   * from a checkpoint starts with its input watermark at the start of time on Flink, and reads the
   * events after the checkpoint again before any watermark: an event of a remembered key is judged
   * at the watermark the key knew, as it was before the failure, so a window that had expired stays
   * closed (its late event is again a dead letter, not a second first pane). An event of a key
   * cleared longer ago than this before the checkpoint (or never seen) is judged by the input
   * watermark alone. Cost: a value and a timer per cleared key, for this long.
   *
   * <pre>{@code
   * TrendAggregate aggregate =
   *     TrendAggregate.of(workload).withClearedKeyMemory(Duration.standardHours(1));
   * }</pre>
   *
   * @throws IllegalArgumentException if negative
   */
  public TrendAggregate withClearedKeyMemory(Duration memory) {
    Objects.requireNonNull(memory, "memory");
    if (memory.getMillis() < 0) {
      throw new IllegalArgumentException("the cleared-key memory must be >= 0, but was " + memory);
    }
    return with(changes, sharing, allowedLateness, retention, memory);
  }

  /**
   * Keeps the events that late re-evaluations need (those of the last WITHIN plus the allowed
   * lateness, per key) in a block store instead of Beam state, for windows too large for the state
   * backend's memory: a memory bucket of at most {@code memoryEvents} events per key in Beam state,
   * then blocks in the store, each named in Beam state with the time range of its events. A
   * re-evaluation reads only the blocks reaching into its windows; a block is deleted once every
   * window holding its events has expired (plus the {@link #withPurgeDelay purge delay}).
   *
   * <p>Stores: {@code file:///dir}, {@code gs://bucket/prefix}, {@code memory:name} (this JVM's
   * heap, for tests) or the scheme of a {@code dev.eventide.blockstore.BlockStoreProvider}. Blocks
   * are filed under the workload's query names and the key, so a job restored from a checkpoint or
   * savepoint finds and deletes the blocks its earlier run wrote; give two TrendAggregates of the
   * same queries running at once different stores. Needs an allowed lateness: without one a key
   * keeps at most one WITHIN of events, which Beam state holds.
   *
   * @throws IllegalArgumentException if the URI is not a store's or {@code memoryEvents < 0}
   */
  public TrendAggregate withRetainedEventsIn(String storeUri, long memoryEvents) {
    BlockStores.checkUri(storeUri);
    if (memoryEvents < 0) {
      throw new IllegalArgumentException(
          "the memory bucket must hold >= 0 events, but was " + memoryEvents);
    }
    return with(
        changes,
        sharing,
        allowedLateness,
        new Retention(storeUri, memoryEvents, retention.purgeDelayMillis()),
        clearedKeyMemory);
  }

  /**
   * How much further the watermark must pass a block's expiry before the block is deleted (default
   * 0). On a runner that restores checkpoints (Flink), make it more than the event time that passes
   * between two checkpoints plus a recovery: a job restored from a checkpoint taken before the
   * deletion may re-evaluate windows that need the block (and fails naming the missing block).
   *
   * @throws IllegalArgumentException if negative
   */
  public TrendAggregate withPurgeDelay(Duration delay) {
    Objects.requireNonNull(delay, "delay");
    if (delay.getMillis() < 0) {
      throw new IllegalArgumentException("the purge delay must be >= 0, but was " + delay);
    }
    return with(
        changes,
        sharing,
        allowedLateness,
        new Retention(retention.storeUri(), retention.memoryEvents(), delay.getMillis()),
        clearedKeyMemory);
  }

  @Override
  public Result expand(PCollection<Event> events) {
    if (retention.storeUri() != null && allowedLateness.getMillis() == 0) {
      throw new IllegalArgumentException(
          "withRetainedEventsIn("
              + retention.storeUri()
              + ") needs withAllowedLateness(> 0): without allowed lateness a key keeps at most one"
              + " WITHIN of events, in Beam state");
    }
    if (liveChanges != null) {
      return expandWithLiveChanges(events);
    }
    PCollectionTuple routed =
        inGlobalWindow(events)
            .apply(
                "Route",
                ParDo.of(new RouteFn(workload, changes, sharing))
                    .withOutputTags(RouteFn.ROUTED, TupleTagList.of(RouteFn.DEAD)));
    PCollectionTuple aggregated = aggregate(routed.get(RouteFn.ROUTED), null);
    PCollection<TrendResult> results =
        intoResultWindows(aggregated.get(TrendAggregateFn.RESULTS).setCoder(TrendResultCoder.of()));
    PCollection<DeadLetter> deadLetters =
        deadLetters(routed.get(RouteFn.DEAD), aggregated.get(TrendAggregateFn.DEAD));
    return new Result(events.getPipeline(), results, deadLetters, null);
  }

  /**
   * Changes sent while the job runs: a change log decides the versions, shards of a sequencer route
   * each event once every version in force by its time is known, the keys evaluate their versions,
   * and a filter keeps each version's results of its own windows (docs/decisions/
   * workload-changes-on-beam.md).
   */
  private Result expandWithLiveChanges(PCollection<Event> events) {
    if (liveChanges.getPipeline() != events.getPipeline()) {
      throw new IllegalArgumentException(
          "the workload changes are a PCollection of another pipeline than the events'");
    }
    VersionStore versions = new VersionStore(versionStoreUri, workload, sharing);
    PCollection<KV<Integer, WorkloadChange>> keyedChanges =
        liveChanges
            .apply("ChangesIntoGlobalWindow", Window.<WorkloadChange>into(new GlobalWindows()))
            .apply("KeyChanges", WithKeys.of(0))
            .setCoder(KvCoder.of(VarIntCoder.of(), WorkloadChangeCoder.of()));
    // What the change log judges changes by after a restore (WatermarkFloor says why).
    PCollectionView<Long> changesFloor = WatermarkFloor.of(keyedChanges);
    PCollectionTuple log =
        keyedChanges.apply(
            "ChangeLog",
            ParDo.of(
                    new ChangeLogFn(
                        workload,
                        versions,
                        SEQUENCER_SHARDS,
                        allowedLateness.getMillis(),
                        changesFloor))
                .withSideInputs(WatermarkFloor.sideInputs(changesFloor))
                .withOutputTags(
                    ChangeLogFn.VERSIONS,
                    TupleTagList.of(ChangeLogFn.BOUNDS).and(ChangeLogFn.REFUSED)));
    KvCoder<Integer, Sequenced> sequencedCoder = KvCoder.of(VarIntCoder.of(), Sequenced.Coder.of());
    KvCoder<String, Filtered> filteredCoder = KvCoder.of(StringUtf8Coder.of(), Filtered.Coder.of());
    PCollection<KV<Integer, Sequenced>> shardedEvents =
        inGlobalWindow(events)
            .apply("Shard", ParDo.of(new SequencerFn.ShardFn(SEQUENCER_SHARDS)))
            .setCoder(sequencedCoder);
    PCollectionTuple sequenced =
        PCollectionList.of(log.get(ChangeLogFn.VERSIONS).setCoder(sequencedCoder))
            .and(shardedEvents)
            .apply("VersionsAndEvents", Flatten.pCollections())
            .apply(
                "Sequence",
                ParDo.of(new SequencerFn(workload, sharing, allowedLateness.getMillis()))
                    .withOutputTags(SequencerFn.ROUTED, TupleTagList.of(SequencerFn.DEAD)));
    PCollectionTuple aggregated = aggregate(sequenced.get(SequencerFn.ROUTED), versions);
    aggregated.get(TrendAggregateFn.RESULTS).setCoder(TrendResultCoder.of());
    PCollection<TrendResult> filtered =
        PCollectionList.of(aggregated.get(TrendAggregateFn.VERSIONED).setCoder(filteredCoder))
            .and(log.get(ChangeLogFn.BOUNDS).setCoder(filteredCoder))
            .apply("ResultsAndBounds", Flatten.pCollections())
            .apply(
                "KeepEachVersionsOwn",
                ParDo.of(new ResultFilterFn(versions, retention.purgeDelayMillis())))
            .setCoder(TrendResultCoder.of());
    PCollection<DeadLetter> deadLetters =
        deadLetters(sequenced.get(SequencerFn.DEAD), aggregated.get(TrendAggregateFn.DEAD));
    PCollection<RefusedChange> refused =
        log.get(ChangeLogFn.REFUSED).setCoder(RefusedChange.Coder.of());
    return new Result(events.getPipeline(), intoResultWindows(filtered), deadLetters, refused);
  }

  /**
   * The events in the global window, where the keys keep their own windows. A step that moves every
   * element is left out when they are there already, with Beam's default windowing (a source's
   * output, say): it would cost a tenth of the routing thread's time on Flink.
   */
  private static PCollection<Event> inGlobalWindow(PCollection<Event> events) {
    if (events.getWindowingStrategy().equals(WindowingStrategy.globalDefault())) {
      return events;
    }
    return events.apply("IntoGlobalWindow", Window.<Event>into(new GlobalWindows()));
  }

  private PCollectionTuple aggregate(
      PCollection<KV<String, List<Event>>> routed, VersionStore liveVersions) {
    TupleTagList outputs = TupleTagList.of(TrendAggregateFn.DEAD);
    if (liveVersions != null) {
      outputs = outputs.and(TrendAggregateFn.VERSIONED);
    }
    routed.setCoder(KvCoder.of(StringUtf8Coder.of(), EventBatchCoder.of()));
    // What the keys judge events by after a restore (WatermarkFloor says why).
    PCollectionView<Long> floor = WatermarkFloor.of(routed);
    return routed.apply(
        "Aggregate",
        ParDo.of(
                new TrendAggregateFn(
                    workload,
                    changes,
                    sharing,
                    allowedLateness.getMillis(),
                    retention,
                    clearedKeyMemory.getMillis(),
                    liveVersions,
                    floor))
            .withSideInputs(WatermarkFloor.sideInputs(floor))
            .withOutputTags(TrendAggregateFn.RESULTS, outputs));
  }

  private PCollection<TrendResult> intoResultWindows(PCollection<TrendResult> results) {
    PCollection<TrendResult> windowed =
        results.apply(
            "IntoResultWindows",
            // The allowed lateness a windowed GroupByKey would carry: a window downstream
            // keeps the LATE panes instead of dropping them as late data.
            Window.<TrendResult>into(new ResultWindows())
                .withAllowedLateness(allowedLateness)
                .accumulatingFiredPanes());
    windowed.setSchema(
        TrendSchemas.RESULT,
        TypeDescriptor.of(TrendResult.class),
        TrendSchemas::toRow,
        TrendSchemas::resultFromRow);
    return windowed;
  }

  private static PCollection<DeadLetter> deadLetters(
      PCollection<DeadLetter> routing, PCollection<DeadLetter> aggregating) {
    PCollection<DeadLetter> deadLetters =
        PCollectionList.of(routing.setCoder(DeadLetter.Coder.of()))
            .and(aggregating.setCoder(DeadLetter.Coder.of()))
            .apply("DeadLetters", Flatten.pCollections());
    deadLetters.setSchema(
        TrendSchemas.DEAD_LETTER,
        TypeDescriptor.of(DeadLetter.class),
        TrendSchemas::toRow,
        TrendSchemas::deadLetterFromRow);
    return deadLetters;
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    builder
        .add(DisplayData.item("queries", workload.queries().size()).withLabel("Queries"))
        .add(
            DisplayData.item(
                    "queryNames",
                    String.join(", ", workload.queries().stream().map(Query::name).toList()))
                .withLabel("Query names"))
        .add(DisplayData.item("sharing", sharing.toString()).withLabel("Sharing"))
        .add(DisplayData.item("workloadChanges", changes.size()).withLabel("Workload changes"))
        .addIfNotNull(
            DisplayData.item("workloadVersionStore", versionStoreUri)
                .withLabel("Store of workload versions (changes sent while the job runs)"))
        .add(DisplayData.item("allowedLateness", allowedLateness).withLabel("Allowed lateness"))
        .add(
            DisplayData.item("clearedKeyMemory", clearedKeyMemory)
                .withLabel("Cleared key memory (event time)"))
        .addIfNotNull(
            DisplayData.item("retainedEventsStore", retention.storeUri())
                .withLabel("Store of retained events"));
    if (retention.storeUri() != null) {
      builder
          .add(
              DisplayData.item("retainedInMemory", retention.memoryEvents())
                  .withLabel("Retained events in memory per key"))
          .add(
              DisplayData.item("purgeDelay", Duration.millis(retention.purgeDelayMillis()))
                  .withLabel("Purge delay"));
    }
  }

  /** The results of {@link TrendAggregate} and the events it did not aggregate. */
  public static final class Result implements POutput {
    private static final TupleTag<TrendResult> RESULTS = new TupleTag<>("results");
    private static final TupleTag<DeadLetter> DEAD_LETTERS = new TupleTag<>("deadLetters");
    private static final TupleTag<RefusedChange> REFUSED_CHANGES = new TupleTag<>("refusedChanges");

    private final Pipeline pipeline;
    private final PCollection<TrendResult> results;
    private final PCollection<DeadLetter> deadLetters;
    private final PCollection<RefusedChange> refusedChanges;

    private Result(
        Pipeline pipeline,
        PCollection<TrendResult> results,
        PCollection<DeadLetter> deadLetters,
        PCollection<RefusedChange> refusedChanges) {
      this.pipeline = pipeline;
      this.results = results;
      this.deadLetters = deadLetters;
      this.refusedChanges = refusedChanges;
    }

    /** One result per query, window and group with a trend, and per late re-evaluation. */
    public PCollection<TrendResult> results() {
      return results;
    }

    /** Events not aggregated, with the reason, in the global window at their time. */
    public PCollection<DeadLetter> deadLetters() {
      return deadLetters;
    }

    /**
     * The workload changes sent while the job runs that did not apply, with the reason, at their
     * time in the global window.
     *
     * @throws IllegalStateException unless the transform takes changes sent while it runs ({@link
     *     TrendAggregate#withWorkloadChanges(PCollection, String)})
     */
    public PCollection<RefusedChange> refusedChanges() {
      if (refusedChanges == null) {
        throw new IllegalStateException(
            "refused changes come only from a TrendAggregate that takes changes sent while it"
                + " runs: withWorkloadChanges(PCollection, String)");
      }
      return refusedChanges;
    }

    @Override
    public Pipeline getPipeline() {
      return pipeline;
    }

    @Override
    public Map<TupleTag<?>, PValue> expand() {
      return refusedChanges == null
          ? Map.of(RESULTS, results, DEAD_LETTERS, deadLetters)
          : Map.of(RESULTS, results, DEAD_LETTERS, deadLetters, REFUSED_CHANGES, refusedChanges);
    }

    @Override
    public void finishSpecifyingOutput(
        String transformName, PInput input, PTransform<?, ?> transform) {}
  }
}
