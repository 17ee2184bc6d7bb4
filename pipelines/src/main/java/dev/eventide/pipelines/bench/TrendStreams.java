package dev.eventide.pipelines.bench;

import dev.eventide.trends.Event;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Seeded event streams and query workloads for {@code eventide bench trends}, shaped like the
 * HAMLET paper's: a ride-sharing stream of 20 event types where Travel comes in bursts, a
 * stock-like stream of 20 tickers where the busiest trade in bursts, and the rides stream with
 * short bursts that queries split into small classes ({@link Kind#SCATTERED}). Workloads share the
 * bursty Kleene type across queries with differing start types, aggregates and predicates. One
 * more, {@link Kind#VARPULIS}, has the shape of the multi-query benchmark of Varpulis (an event
 * processor with a HAMLET implementation), so that figures can be set side by side.
 */
public final class TrendStreams {
  static final String[] RIDE_TYPES = {
    "Request",
    "Accept",
    "Pickup",
    "Travel",
    "Dropoff",
    "Cancel",
    "Payment",
    "Rating",
    "Surge",
    "Idle",
    "Refuel",
    "Break",
    "Reroute",
    "Wait",
    "Toll",
    "Tip",
    "Complaint",
    "Login",
    "Logout",
    "Ping"
  };
  private static final String[] RIDE_STARTS = {"Request", "Accept", "Pickup", "Surge", "Wait"};
  private static final String[] RIDE_ENDS = {"Dropoff", "Payment", "Toll"};

  /** The stream kinds of the benchmark. */
  public enum Kind {
    RIDES,
    STOCKS,
    /**
     * The rides stream where Travel comes alone or in short runs (mean 1.2) and every query has a
     * speed limit of its own on Travel: bursts are split into classes of one or a few queries, so
     * sharing a burst saves little and costs a map; the case where HAMLET's dynamic decision should
     * not share.
     */
    SCATTERED,
    /**
     * The shape of Varpulis's multi-query HAMLET benchmark: queries {@code SEQ(S<i mod 10>, B+)}
     * COUNT(*) over 10 start types; each window holds runs of one start event then 20 B events, the
     * same number of runs of each start type, in turn (10 runs each at 2,100 events per window). No
     * attributes, no predicates, no groups: the cost is the Kleene counting alone.
     */
    VARPULIS
  }

  /** Start types, and B events after each start event, of {@link Kind#VARPULIS}. */
  static final int VARPULIS_STARTS = 10;

  static final int VARPULIS_RUN = 20;

  private TrendStreams() {}

  /**
   * Events for {@code windows} windows of {@code windowMillis} each, {@code perWindow} events in
   * each, in time order: bursts of the shared Kleene type (mean length 12; about 1.2 on {@link
   * Kind#SCATTERED}) between single events of the other types; about 5 in 6 events are of the
   * bursty type (about 3 in 8 on {@link Kind#SCATTERED}).
   */
  public static List<Event> events(
      Kind kind, long seed, int perWindow, int windows, long windowMillis) {
    if (kind == Kind.VARPULIS) {
      return runs(perWindow, windows, windowMillis);
    }
    Random random = new Random(seed);
    int total = perWindow * windows;
    List<Event> events = new ArrayList<>(total);
    double step = (double) windowMillis / perWindow;
    double clock = 0;
    while (events.size() < total) {
      boolean burst = random.nextInt(3) == 0;
      double meanRun = kind == Kind.SCATTERED ? 0.5 : 12;
      int length = burst ? 1 + (int) (-meanRun * Math.log(1 - random.nextDouble())) : 1;
      String type = burst ? burstType(kind, random) : otherType(kind, random);
      int group = 1 + random.nextInt(4);
      for (int i = 0; i < length && events.size() < total; i++) {
        clock += step;
        events.add(event(kind, type, (long) clock, group, random));
      }
    }
    return events;
  }

  /**
   * {@link Kind#VARPULIS}: per window, runs of a start event and {@link #VARPULIS_RUN} B events,
   * the start types taking turns, as many runs as fill {@code perWindow} events (at least one);
   * evenly spaced in time, so that each window holds exactly its own runs.
   */
  private static List<Event> runs(int perWindow, int windows, long windowMillis) {
    int runs = Math.max(1, perWindow / (VARPULIS_RUN + 1));
    int perRunWindow = runs * (VARPULIS_RUN + 1);
    List<Event> events = new ArrayList<>(perRunWindow * windows);
    double step = (double) windowMillis / perRunWindow;
    for (int w = 0; w < windows; w++) {
      long windowStart = w * windowMillis;
      int k = 0;
      for (int r = 0; r < runs; r++) {
        String start = "S" + r % VARPULIS_STARTS;
        events.add(Event.of(start, windowStart + (long) (k++ * step)));
        for (int b = 0; b < VARPULIS_RUN; b++) {
          events.add(Event.of("B", windowStart + (long) (k++ * step)));
        }
      }
    }
    return events;
  }

  private static String burstType(Kind kind, Random random) {
    return kind == Kind.STOCKS ? "T0" + random.nextInt(3) : "Travel";
  }

  private static String otherType(Kind kind, Random random) {
    if (kind != Kind.STOCKS) {
      String type;
      do {
        type = RIDE_TYPES[random.nextInt(RIDE_TYPES.length)];
      } while (type.equals("Travel"));
      return type;
    }
    return String.format("T%02d", 3 + random.nextInt(17));
  }

  private static Event event(Kind kind, String type, long time, int group, Random random) {
    if (kind != Kind.STOCKS) {
      return Event.of(
          type,
          time,
          "district",
          group,
          "driver",
          random.nextInt(50),
          "speed",
          Math.round(random.nextDouble() * 400) / 10.0,
          "price",
          1 + random.nextInt(100));
    }
    return Event.of(
        type,
        time,
        "exchange",
        group,
        "price",
        Math.round(random.nextDouble() * 10_000) / 100.0,
        "volume",
        1 + random.nextInt(1000));
  }

  /** A workload of {@code queries} queries sharing the stream's bursty Kleene type. */
  public static String workload(Kind kind, long seed, int queries, long windowMillis) {
    if (kind == Kind.VARPULIS) {
      StringBuilder text = new StringBuilder();
      for (int i = 0; i < queries; i++) {
        text.append("QUERY q").append(i).append('\n');
        text.append("RETURN COUNT(*)\n");
        text.append("PATTERN SEQ(S").append(i % VARPULIS_STARTS).append(", B+)\n");
        text.append("WITHIN ").append(windowMillis).append(" ms\n\n");
      }
      return text.toString();
    }
    Random random = new Random(seed);
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < queries; i++) {
      String start;
      String kleene;
      String end;
      String value;
      String filter;
      String group;
      if (kind != Kind.STOCKS) {
        start = RIDE_STARTS[random.nextInt(RIDE_STARTS.length)];
        kleene = "Travel";
        end = random.nextBoolean() ? RIDE_ENDS[random.nextInt(RIDE_ENDS.length)] : null;
        value = random.nextBoolean() ? "speed" : "price";
        int limit =
            kind == Kind.SCATTERED ? 5 + random.nextInt(36) : random.nextInt(4) == 0 ? 30 : 45;
        filter = "Travel.speed < " + limit;
        group = "district";
      } else {
        start = String.format("T%02d", 3 + random.nextInt(17));
        kleene = "T0" + random.nextInt(3);
        end = random.nextBoolean() ? String.format("T%02d", 3 + random.nextInt(17)) : null;
        value = random.nextBoolean() ? "price" : "volume";
        filter = kleene + ".volume > " + (random.nextInt(4) == 0 ? 100 : 0);
        group = "exchange";
      }
      String aggregate =
          switch (random.nextInt(4)) {
            case 0 -> "COUNT(*)";
            case 1 -> "COUNT(" + kleene + ")";
            case 2 -> "SUM(" + kleene + "." + value + ")";
            default -> "AVG(" + kleene + "." + value + ")";
          };
      text.append("QUERY q").append(i).append('\n');
      text.append("RETURN ").append(aggregate).append('\n');
      text.append("PATTERN SEQ(")
          .append(start)
          .append(", ")
          .append(kleene)
          .append('+')
          .append(end == null ? "" : ", " + end)
          .append(")\n");
      text.append("WHERE ")
          .append(start)
          .append(kind != Kind.STOCKS ? ".price < " : ".volume < ")
          .append(kind != Kind.STOCKS ? 50 + random.nextInt(51) : 500 + random.nextInt(501))
          .append(" AND ")
          .append(filter)
          .append('\n');
      text.append("GROUPBY ").append(group).append('\n');
      text.append("WITHIN ").append(windowMillis).append(" ms\n\n");
    }
    return text.toString();
  }
}
