package dev.eventide.pipelines.cli;

import dev.eventide.generators.LateEventGenerator;
import dev.eventide.generators.LatenessDistribution;
import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * How the events of a {@link LateEventGenerator} stream arrive: how many per window of arrival
 * time, and how many windows late.
 */
final class ArrivalOptions {
  // The stream spans events / eventsPerWindow windows after its start, and late events reach back
  // before it (a margin of a thousand windows): all of it must be a time Beam can carry.
  private static final double MARGIN_WINDOWS = 1_000;

  /** What fits between the generator's start (2023) and either end of Beam's timestamps. */
  private static final double MAX_SPAN_MILLIS = 9.0e15;

  @Option(
      names = "--events-per-window",
      paramLabel = "N",
      description =
          "Events arriving per window of arrival time (default: 10000; overlap: 50; linear-road:"
              + " 2000, a report per vehicle every 30 s).")
  Integer eventsPerWindow;

  @Option(
      names = "--lateness",
      paramLabel = "DIST",
      defaultValue = "lognormal(0,1)",
      description =
          "How many windows late a late event is: lognormal(mu,sigma), uniform(min,max),"
              + " normal(mean,sd), or bursts(sd,c1,c2,...), an equal mix of normal distributions"
              + " of standard deviation sd centred c1, c2, ... windows late (default:"
              + " ${DEFAULT-VALUE}, the Aion paper's).")
  String lateness;

  /**
   * Sets what the user left out to the workload's default, and checks the values against the
   * stream's.
   *
   * @throws EventideCli.UsageException naming the flag whose value cannot make a run
   */
  void resolve(int defaultEventsPerWindow, StreamOptions stream) {
    if (eventsPerWindow == null) {
      eventsPerWindow = defaultEventsPerWindow;
    }
    if (eventsPerWindow < 1 || eventsPerWindow > stream.window.getMillis()) {
      throw new EventideCli.UsageException(
          "--events-per-window must be from 1 to the --window in ms ("
              + stream.window.getMillis()
              + "), but was "
              + eventsPerWindow);
    }
    try {
      LatenessDistribution.parse(lateness);
    } catch (IllegalArgumentException e) {
      throw new EventideCli.UsageException("--lateness " + lateness + ": " + e.getMessage());
    }
    double windows = (double) stream.events / eventsPerWindow + MARGIN_WINDOWS;
    if (windows * stream.window.getMillis() + stream.allowedLateness.getMillis()
        > MAX_SPAN_MILLIS) {
      throw new EventideCli.UsageException(
          String.format(
              Locale.ROOT,
              "--window %s over %,d events (%,d per window) spans beyond the times Beam can"
                  + " carry (about 292,000 years from 1970); use a shorter --window or fewer"
                  + " --events",
              DurationConverter.format(stream.window),
              stream.events,
              eventsPerWindow));
    }
  }

  /** The stream of these flags and the stream's. */
  LateEventGenerator generator(StreamOptions stream) {
    try {
      return LateEventGenerator.builder()
          .setEvents(stream.events)
          .setEventsPerWindow(eventsPerWindow)
          .setWindow(stream.window)
          .setLateFraction(stream.lateFraction)
          .setLateness(LatenessDistribution.parse(lateness))
          .setSeed(stream.seed)
          .build();
    } catch (IllegalArgumentException e) {
      throw new EventideCli.UsageException(e.getMessage());
    }
  }
}
