package dev.eventide.trends;

/**
 * Evaluates a workload of trend aggregation queries over a stream of events given in non-decreasing
 * time order. Results of a window are handed to the engine's sink as soon as an event at or after
 * the window's end arrives, and for the remaining windows on {@link #finish()}. Not thread-safe.
 *
 * <pre>{@code
 * TrendEngine engine = Engines.HAMLET.create(workload, result -> System.out.println(result));
 * engine.process(Event.of("Request", 1_000, "driver", 7, "district", 3));
 * engine.process(Event.of("Travel", 2_000, "driver", 7, "district", 3));
 * engine.finish();   // the windows still open
 * }</pre>
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
