package dev.eventide.generators;

import com.google.auto.value.AutoValue;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.commons.math3.random.RandomGenerator;
import org.apache.commons.math3.random.Well19937c;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * A seeded, reproducible stream of events with late arrivals, as in the Aion paper's experiments:
 * events arrive at a steady rate, and an event that arrives at time {@code a} carries the event
 * time {@code a − k·window}, where the window index {@code k} is drawn from a {@link
 * LatenessDistribution} (log-normal with μ=0, σ=1 by default). A share {@link #lateFraction()} of
 * events is delayed that way; the others carry their arrival time.
 *
 * <pre>{@code
 * LateEventGenerator generator =
 *     LateEventGenerator.builder()
 *         .setEvents(200_000)
 *         .setWindow(Duration.standardSeconds(10))
 *         .setLateFraction(0.1)
 *         .setLateness(LatenessDistribution.logNormal(0.5, 1.0))   // in windows
 *         .setSeed(7)
 *         .build();
 * for (LateEvent e : generator) {
 *   // e.eventTime(), e.arrivalTime(), and the watermark it arrives under
 * }
 * }</pre>
 *
 * <p>Watermarks are periodic, as in the paper: every {@link #watermarkPeriod()} of arrival time the
 * watermark moves to the start of the current period, so an event is late exactly when its event
 * time is before the period in which it arrives. Each event records the watermark it arrived under.
 *
 * <p>The same configuration always yields the same events, whether read through {@link #iterator()}
 * or {@link LateEventSource} (tests also replay it as a {@code TestStream}).
 */
@AutoValue
public abstract class LateEventGenerator implements Serializable, Iterable<LateEvent> {
  private static final long serialVersionUID = 1L;

  /** Arrival time of the first event; also the first watermark. */
  public abstract Instant start();

  /** The window length that lateness is measured in. */
  public abstract Duration window();

  /** Events that arrive per window of arrival time. */
  public abstract int eventsPerWindow();

  /** Total number of events. */
  public abstract long events();

  /** Share of events that are delayed by {@link #lateness()} windows. */
  public abstract double lateFraction();

  /** How many windows a delayed event is late by. */
  public abstract LatenessDistribution lateness();

  /** Period of the watermark, in arrival time. */
  public abstract Duration watermarkPeriod();

  /** Events are keyed uniformly in {@code [0, keys)}. */
  public abstract int keys();

  /** Values are uniform in {@code [0, maxValue)}. */
  public abstract long maxValue();

  /** Seed of the random generator. */
  public abstract long seed();

  public abstract Builder toBuilder();

  /**
   * Returns a builder with the Aion defaults: log-normal(0, 1) lateness for every event, a 10 s
   * window with the watermark period equal to it, 1,000 events per window, 10,000 events, one key,
   * values in {@code [0, 1000)}, seed 42, start 2023-11-14T22:13:20Z.
   */
  public static Builder builder() {
    return new AutoValue_LateEventGenerator.Builder()
        .setStart(new Instant(1_700_000_000_000L))
        .setWindow(Duration.standardSeconds(10))
        .setEventsPerWindow(1_000)
        .setEvents(10_000)
        .setLateFraction(1.0)
        .setLateness(LatenessDistribution.logNormal(0, 1))
        .setKeys(1)
        .setMaxValue(1_000)
        .setSeed(42);
  }

  /** Builder of {@link LateEventGenerator}; the watermark period defaults to the window. */
  @AutoValue.Builder
  public abstract static class Builder {
    public abstract Builder setStart(Instant start);

    public abstract Builder setWindow(Duration window);

    public abstract Builder setEventsPerWindow(int eventsPerWindow);

    public abstract Builder setEvents(long events);

    public abstract Builder setLateFraction(double lateFraction);

    public abstract Builder setLateness(LatenessDistribution lateness);

    public abstract Builder setWatermarkPeriod(Duration period);

    public abstract Builder setKeys(int keys);

    public abstract Builder setMaxValue(long maxValue);

    public abstract Builder setSeed(long seed);

    abstract Duration window();

    abstract java.util.Optional<Duration> watermarkPeriod();

    abstract LateEventGenerator autoBuild();

    /**
     * Builds the generator.
     *
     * @throws IllegalArgumentException naming the first invalid parameter and its value
     */
    public LateEventGenerator build() {
      if (watermarkPeriod().isEmpty()) {
        setWatermarkPeriod(window());
      }
      LateEventGenerator g = autoBuild();
      check(g.window().getMillis() > 0, "window must be > 0, but was %s", g.window());
      check(
          g.watermarkPeriod().getMillis() > 0,
          "watermarkPeriod must be > 0, but was %s",
          g.watermarkPeriod());
      check(
          g.eventsPerWindow() >= 1 && g.eventsPerWindow() <= g.window().getMillis(),
          "eventsPerWindow must be in [1, window in ms = %s], but was %s",
          g.window().getMillis(),
          g.eventsPerWindow());
      check(g.events() >= 0, "events must be >= 0, but was %s", g.events());
      check(
          g.lateFraction() >= 0 && g.lateFraction() <= 1,
          "lateFraction must be in [0, 1], but was %s",
          g.lateFraction());
      check(g.keys() >= 1, "keys must be >= 1, but was %s", g.keys());
      check(g.maxValue() >= 1, "maxValue must be >= 1, but was %s", g.maxValue());
      return g;
    }

    private static void check(boolean condition, String message, Object... args) {
      if (!condition) {
        throw new IllegalArgumentException(String.format(message, args));
      }
    }
  }

  /** Arrival time of event {@code index}: a steady rate of {@link #eventsPerWindow()}. */
  public Instant arrivalTime(long index) {
    return start().plus(Math.multiplyExact(index, window().getMillis()) / eventsPerWindow());
  }

  /** The watermark when an event arrives at {@code arrival}: the start of its period. */
  public Instant watermarkAt(Instant arrival) {
    long period = watermarkPeriod().getMillis();
    long sinceStart = arrival.getMillis() - start().getMillis();
    return start().plus(Math.floorDiv(sinceStart, period) * period);
  }

  /** Returns the events in arrival order. */
  @Override
  public Iterator<LateEvent> iterator() {
    return new EventIterator();
  }

  /** Returns all events in arrival order. */
  public List<LateEvent> generate() {
    List<LateEvent> out = new ArrayList<>();
    forEach(out::add);
    return out;
  }

  /**
   * Draws events in a fixed order per event (delayed?, window index, key, value) from one seeded
   * generator, so a stream is reproducible from its configuration alone.
   */
  private final class EventIterator implements Iterator<LateEvent> {
    private final RandomGenerator random = new Well19937c(seed());
    private final LatenessDistribution.Sampler windowIndex = lateness().sampler(random);
    private long next;

    @Override
    public boolean hasNext() {
      return next < events();
    }

    @Override
    public LateEvent next() {
      if (!hasNext()) {
        throw new NoSuchElementException("all " + events() + " events were generated");
      }
      Instant arrival = arrivalTime(next++);
      boolean delayed = random.nextDouble() < lateFraction();
      long delayMillis = delayed ? Math.round(windowIndex.sample() * window().getMillis()) : 0;
      int key = random.nextInt(keys());
      long value = (long) (random.nextDouble() * maxValue());
      return new LateEvent(key, value, arrival.minus(delayMillis), arrival, watermarkAt(arrival));
    }
  }
}
