package dev.eventide.trends;

/**
 * Evaluates a workload of trend aggregation queries over a stream of events given in non-decreasing
 * time order. Results of a window are handed to the engine's sink as soon as an event at or after
 * the window's end arrives, and for the remaining windows on {@link #finish()}. Not thread-safe.
 */
public interface TrendEngine {

  /**
   * Processes the next event.
   *
   * @throws IllegalArgumentException if its time is earlier than that of the previous event
   */
  void process(Event event);

  /** Closes every open window, emitting their results. */
  void finish();

  /** Counters describing the work done, for benchmarks and tests (names depend on the engine). */
  java.util.Map<String, Long> statistics();
}
