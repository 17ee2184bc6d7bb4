package dev.eventide.trends.beam;

import dev.eventide.trends.Event;
import dev.eventide.trends.Sharing;
import dev.eventide.trends.internal.engine.TrendPlan;
import dev.eventide.trends.internal.engine.VersionedPlan;
import dev.eventide.trends.io.WorkloadVersions;
import dev.eventide.trends.query.Workload;
import dev.eventide.trends.query.WorkloadChange;
import java.math.BigDecimal;
import java.util.List;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindow;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TupleTag;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Checks each event against the workload's schema and keys it by every (sharing unit, GROUPBY
 * group) that reads it; an event the workload cannot use goes to the dead letters with the reason.
 * The events of a bundle are sent per key in batches ({@link EventBatches}), each timestamped at
 * its earliest event, at the end of the bundle: no runner moves the output watermark past a bundle
 * before it finishes (Flink's {@code DoFnOperator#maybeEmitWatermark} waits for it), so a batch is
 * as late, or on time, as its events are alone; and Flink finishes the bundle before every
 * checkpoint ({@code DoFnOperator#snapshotState}), so no event waits in a batch across one.
 */
final class RouteFn extends DoFn<Event, KV<String, List<Event>>> {
  static final TupleTag<KV<String, List<Event>>> ROUTED = new TupleTag<>() {};
  static final TupleTag<DeadLetter> DEAD = new TupleTag<>() {};

  private final Workload workload;
  private final List<WorkloadChange> changes;
  private final Sharing sharing;
  private transient VersionedPlan versions;
  private transient WorkloadVersions schemas;
  private transient EventBatches batches;

  RouteFn(Workload workload, List<WorkloadChange> changes, Sharing sharing) {
    this.workload = workload;
    this.changes = List.copyOf(changes);
    this.sharing = sharing;
  }

  @Setup
  public void setup() {
    versions = VersionedPlan.compile(workload, changes, sharing);
    // The changes were checked when the transform was built: none is refused here.
    schemas =
        WorkloadVersions.of(
            workload,
            changes,
            refused -> {
              throw refused;
            });
  }

  /** A bundle starts with no batch: what a failed bundle gathered is not sent. */
  @StartBundle
  public void startBundle() {
    batches = new EventBatches();
  }

  @ProcessElement
  public void process(@Element Event e, MultiOutputReceiver out) {
    TrendMetrics.EVENTS.inc();
    String problem = schemas.problemWith(e);
    List<VersionedPlan.Route> routes = versions.route(e);
    if (problem == null) {
      for (VersionedPlan.Route r : routes) {
        problem = outsideBeamTime(e.time(), versions.plan(r.version()), r.unit());
        if (problem != null) {
          break;
        }
      }
    }
    if (problem != null) {
      TrendMetrics.DEAD_LETTERS.inc();
      out.get(DEAD).outputWithTimestamp(new DeadLetter(e, problem), clamp(e.time()));
      return;
    }
    if (routes.isEmpty()) {
      TrendMetrics.EVENTS_IGNORED.inc();
      return;
    }
    for (VersionedPlan.Route r : routes) {
      TrendPlan plan = versions.plan(r.version());
      List<Object> group = plan.group(new TrendPlan.Route(r.unit(), r.partition()));
      String versionTag = r.version() > 0 ? Integer.toString(r.version()) : null;
      batches.add(new EventBatches.Key(versionTag, r.unit(), group), e);
    }
    if (batches.full()) {
      batches.flush(out.get(ROUTED)::outputWithTimestamp);
    }
  }

  @FinishBundle
  public void finishBundle(FinishBundleContext c) {
    // The input is in the global window (TrendAggregate puts it there if it was not), and so is
    // every batch.
    batches.flush((batch, timestamp) -> c.output(ROUTED, batch, timestamp, GlobalWindow.INSTANCE));
  }

  /** Events keep their own time as timestamp, which may be before the input element's. */
  @Override
  @SuppressWarnings("deprecation")
  public Duration getAllowedTimestampSkew() {
    return Duration.millis(Long.MAX_VALUE);
  }

  /**
   * Null if every window of the unit holding time t, and its timers, are within Beam's timestamps,
   * else why not.
   */
  static String outsideBeamTime(long t, TrendPlan plan, int unit) {
    if (fitsBeamTime(t, plan.within(unit), plan.slide(unit))) {
      return null;
    }
    return "time "
        + t
        + " is outside the event times Beam can window with WITHIN "
        + plan.within(unit)
        + " ms, SLIDE "
        + plan.slide(unit)
        + " ms (queries "
        + String.join(", ", plan.queryNames(unit))
        + ")";
  }

  /** Whether every window holding time t, and its timers, are within Beam's timestamps. */
  static boolean fitsBeamTime(long t, long within, long slide) {
    long min = BoundedWindow.TIMESTAMP_MIN_VALUE.getMillis();
    long max = GlobalWindow.INSTANCE.maxTimestamp().getMillis();
    return t >= min + within && t <= max - within - slide;
  }

  private static Instant clamp(long t) {
    long min = BoundedWindow.TIMESTAMP_MIN_VALUE.getMillis();
    long max = GlobalWindow.INSTANCE.maxTimestamp().getMillis();
    return new Instant(Math.max(min, Math.min(max, t)));
  }

  /**
   * The key of a version's unit and group: the tag of the version (null, and left out, for version
   * 0, the workload the job started with, whose keys are those of a job without changes; with
   * changes sent while the job runs the tag names the version's block too, {@link VersionStore}),
   * the unit's index, then each value length-prefixed, so that no two groups share a key.
   */
  static String key(String versionTag, int unit, List<Object> group) {
    StringBuilder key = new StringBuilder();
    if (versionTag != null) {
      key.append(versionTag).append(':');
    }
    key.append(unit).append('/');
    for (Object v : group) {
      String text = v instanceof BigDecimal d ? d.toString() : (String) v;
      key.append(v instanceof BigDecimal ? 'n' : 's').append(text.length()).append(':');
      key.append(text);
    }
    return key.toString();
  }

  static int unitOf(String key) {
    String head = key.substring(0, key.indexOf('/'));
    return Integer.parseInt(head.substring(head.indexOf(':') + 1));
  }

  /** The tag of the version a key evaluates ({@link ChangeLogFn#INITIAL} for version 0). */
  static String versionTagOf(String key) {
    int colon = key.indexOf(':');
    int slash = key.indexOf('/');
    return colon < 0 || colon > slash ? ChangeLogFn.INITIAL : key.substring(0, colon);
  }

  static int versionOf(String key) {
    String head = key.substring(0, key.indexOf('/'));
    int colon = head.indexOf(':');
    return colon < 0 ? 0 : Integer.parseInt(head.substring(0, colon));
  }
}
