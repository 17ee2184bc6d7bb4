package dev.eventide.pipelines.ridesharing;

import dev.eventide.trends.Event;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

/**
 * A seeded ride-sharing stream in arrival order: trips of drivers in districts — a Request, a
 * Pickup, a burst of Travel events with speeds, then a Dropoff or (one trip in eight) a Cancel —
 * with a fraction of events arriving late by up to {@code maxDelayMillis}. The watermark at each
 * arrival is the arrival clock minus {@link #SLACK_MILLIS}, so events delayed by more are late.
 */
public record RideStream(
    int events, int districts, int drivers, double lateFraction, long maxDelayMillis, long seed)
    implements Serializable {

  /** Event time of the first trip: 2023-11-14T22:13:20Z. */
  public static final long START = 1_700_000_000_000L;

  /** How far behind the arrival clock the watermark is. */
  public static final long SLACK_MILLIS = 5_000;

  public RideStream {
    if (events < 1 || districts < 1 || drivers < 1) {
      throw new IllegalArgumentException("events, districts and drivers must be positive");
    }
    if (lateFraction < 0 || lateFraction > 1) {
      throw new IllegalArgumentException(
          "late fraction must be in [0, 1], but was " + lateFraction);
    }
    if (maxDelayMillis < 0) {
      throw new IllegalArgumentException("maximum delay must be >= 0");
    }
  }

  /** One event as it arrives, with the watermark the source reports after it. */
  public record Arrival(Event event, long arrivalTime, long watermark) {}

  /** The stream, in arrival order. */
  public List<Arrival> arrivals() {
    Random random = new Random(seed);
    List<long[]> order = new ArrayList<>();
    List<Event> generated = new ArrayList<>(events);
    long clock = START;
    while (generated.size() < events) {
      int driver = random.nextInt(drivers);
      int district = random.nextInt(districts);
      long t = clock;
      generated.add(event("Request", t, driver, district, null));
      t += 1_000 + random.nextInt(20_000);
      generated.add(event("Pickup", t, driver, district, null));
      int travel = 3 + random.nextInt(20);
      double speed = 5 + random.nextInt(30);
      for (int i = 0; i < travel && generated.size() < events; i++) {
        t += 2_000 + random.nextInt(10_000);
        speed = Math.max(0, speed + random.nextInt(9) - 4);
        generated.add(event("Travel", t, driver, district, speed));
      }
      t += 1_000 + random.nextInt(5_000);
      generated.add(
          event(random.nextInt(8) == 0 ? "Cancel" : "Dropoff", t, driver, district, null));
      clock += 200 + random.nextInt(1_500);
    }
    List<Arrival> arrivals = new ArrayList<>(events);
    for (Event e : generated.subList(0, events)) {
      long delay =
          random.nextDouble() < lateFraction ? (long) (random.nextDouble() * maxDelayMillis) : 0;
      order.add(new long[] {e.time() + delay, arrivals.size()});
      arrivals.add(new Arrival(e, e.time() + delay, 0));
    }
    order.sort(Comparator.comparingLong((long[] a) -> a[0]).thenComparingLong(a -> a[1]));
    List<Arrival> sorted = new ArrayList<>(events);
    for (long[] o : order) {
      Arrival a = arrivals.get((int) o[1]);
      sorted.add(new Arrival(a.event(), a.arrivalTime(), a.arrivalTime() - SLACK_MILLIS));
    }
    return sorted;
  }

  private static Event event(String type, long time, int driver, int district, Double speed) {
    return speed == null
        ? Event.of(type, time, "driver", driver, "district", district)
        : Event.of(type, time, "driver", driver, "district", district, "speed", speed);
  }
}
