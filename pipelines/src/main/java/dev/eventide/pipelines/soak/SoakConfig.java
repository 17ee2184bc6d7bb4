package dev.eventide.pipelines.soak;

import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LateEventGenerator;
import dev.eventide.generators.LateEventSource;
import dev.eventide.generators.LatenessDistribution;
import java.io.Serializable;
import org.apache.beam.sdk.io.Read;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * What a soak run generates and how its steps are set: {@code events} events at {@code
 * eventsPerWindow} per {@code window} of event time, over {@code activeKeys} keys at a time, each
 * key living {@code keyLifetime} of event time and then never seen again (so over a run of D days
 * there are {@code activeKeys · D / keyLifetime} distinct keys); a share {@code lateFraction} of
 * them late after Aion's lateness model ({@code lateness}, in windows); every step with {@code
 * allowedLateness}; blocks in {@code storeUri}; read at about {@code rate} events per second of
 * wall clock (0: as fast as the job takes them).
 */
public record SoakConfig(
    long events,
    int activeKeys,
    Duration keyLifetime,
    Duration window,
    int eventsPerWindow,
    double lateFraction,
    LatenessDistribution lateness,
    Duration allowedLateness,
    String storeUri,
    double rate,
    long seed)
    implements Serializable {

  /** Where event time starts: a day boundary, so that simulated days are calendar days. */
  public static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  /**
   * Checks the configuration.
   *
   * @throws IllegalArgumentException naming the first invalid field and its value
   */
  public SoakConfig {
    check(events >= 0, "events must be >= 0, but was %s", events);
    check(activeKeys >= 1, "activeKeys must be >= 1, but was %s", activeKeys);
    check(
        keyLifetime.getMillis() >= window.getMillis() && window.getMillis() > 0,
        "keyLifetime must be at least one window (%s), but was %s",
        window,
        keyLifetime);
    check(
        allowedLateness.getMillis() > 0,
        "allowedLateness must be > 0, but was %s",
        allowedLateness);
    check(storeUri != null && !storeUri.isEmpty(), "storeUri must be given");
    check(rate >= 0, "rate must be >= 0, but was %s", rate);
    // The generator checks the rest (events per window, late fraction) when it is built.
    generator(events, activeKeys, window, eventsPerWindow, lateFraction, lateness, seed);
  }

  /** The generated stream, over the active keys' slots {@code [0, activeKeys)}. */
  LateEventGenerator generator() {
    return generator(events, activeKeys, window, eventsPerWindow, lateFraction, lateness, seed);
  }

  private static LateEventGenerator generator(
      long events,
      int activeKeys,
      Duration window,
      int eventsPerWindow,
      double lateFraction,
      LatenessDistribution lateness,
      long seed) {
    return LateEventGenerator.builder()
        .setStart(START)
        .setEvents(events)
        .setKeys(activeKeys)
        .setWindow(window)
        .setEventsPerWindow(eventsPerWindow)
        .setLateFraction(lateFraction)
        .setLateness(lateness)
        .setMaxValue(1_000)
        .setSeed(seed)
        .build();
  }

  /**
   * The key of an event: its slot in the generation of keys that live at its event time, so a late
   * event belongs to the key it was generated for, and a key is never seen after its lifetime and
   * the lateness.
   */
  String keyOf(LateEvent event) {
    long generation =
        Math.floorDiv(event.eventTime().getMillis() - START.getMillis(), keyLifetime.getMillis());
    return "k" + (generation * activeKeys + event.key());
  }

  /**
   * The source: paced at {@link #rate} by a pause each time the watermark moves (once a window,
   * every {@code eventsPerWindow} events), or as fast as the job reads it.
   */
  Read.Unbounded<LateEvent> source() {
    if (rate == 0) {
      return LateEventSource.read(generator());
    }
    long pauseMillis = Math.max(1, Math.round(1000 * eventsPerWindow / rate));
    return LateEventSource.paced(generator(), Duration.millis(pauseMillis));
  }

  /** The event time the run spans. */
  public Duration eventTimeSpan() {
    return window.multipliedBy(Math.max(1, events / eventsPerWindow));
  }

  /** How many distinct keys the run goes through, at most. */
  public long distinctKeys() {
    long generations = eventTimeSpan().getMillis() / keyLifetime.getMillis() + 1;
    return Math.min(events, generations * activeKeys);
  }

  private static void check(boolean condition, String message, Object... args) {
    if (!condition) {
      throw new IllegalArgumentException(String.format(message, args));
    }
  }
}
