package dev.eventide.trends.beam;

import dev.eventide.trends.Event;
import dev.eventide.trends.Sharing;
import dev.eventide.trends.internal.engine.TrendPlan;
import dev.eventide.trends.io.EventSchema;
import dev.eventide.trends.query.Workload;
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
 * group) that reads it, timestamped at its time; an event the workload cannot use goes to the dead
 * letters with the reason.
 */
final class RouteFn extends DoFn<Event, KV<String, Event>> {
  static final TupleTag<KV<String, Event>> ROUTED = new TupleTag<>() {};
  static final TupleTag<DeadLetter> DEAD = new TupleTag<>() {};

  private final Workload workload;
  private final Sharing sharing;
  private transient TrendPlan plan;
  private transient EventSchema schema;

  RouteFn(Workload workload, Sharing sharing) {
    this.workload = workload;
    this.sharing = sharing;
  }

  @Setup
  public void setup() {
    plan = TrendPlan.compile(workload, sharing);
    schema = EventSchema.of(workload);
  }

  @ProcessElement
  public void process(@Element Event e, MultiOutputReceiver out) {
    TrendMetrics.EVENTS.inc();
    String problem = schema.problemWith(e);
    List<TrendPlan.Route> routes = plan.route(e);
    if (problem == null) {
      for (TrendPlan.Route r : routes) {
        if (!fitsBeamTime(e.time(), plan.within(r.unit()), plan.slide(r.unit()))) {
          problem =
              "time "
                  + e.time()
                  + " is outside the event times Beam can window with WITHIN "
                  + plan.within(r.unit())
                  + " ms, SLIDE "
                  + plan.slide(r.unit())
                  + " ms (queries "
                  + String.join(", ", plan.queryNames(r.unit()))
                  + ")";
          break;
        }
      }
    }
    Instant time = new Instant(e.time());
    if (problem != null) {
      TrendMetrics.DEAD_LETTERS.inc();
      out.get(DEAD).outputWithTimestamp(new DeadLetter(e, problem), clamp(e.time()));
      return;
    }
    if (routes.isEmpty()) {
      TrendMetrics.EVENTS_IGNORED.inc();
      return;
    }
    for (TrendPlan.Route r : routes) {
      out.get(ROUTED).outputWithTimestamp(KV.of(key(r.unit(), plan.group(r)), e), time);
    }
  }

  /** Events keep their own time as timestamp, which may be before the input element's. */
  @Override
  @SuppressWarnings("deprecation")
  public Duration getAllowedTimestampSkew() {
    return Duration.millis(Long.MAX_VALUE);
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
   * The key of a unit and group: the unit's index, then each value length-prefixed, so that no two
   * groups share a key.
   */
  static String key(int unit, List<Object> group) {
    StringBuilder key = new StringBuilder().append(unit).append('/');
    for (Object v : group) {
      String text = v instanceof BigDecimal d ? d.toString() : (String) v;
      key.append(v instanceof BigDecimal ? 'n' : 's').append(text.length()).append(':');
      key.append(text);
    }
    return key.toString();
  }

  static int unitOf(String key) {
    return Integer.parseInt(key.substring(0, key.indexOf('/')));
  }
}
