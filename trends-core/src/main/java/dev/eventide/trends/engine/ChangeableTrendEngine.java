package dev.eventide.trends.engine;

import dev.eventide.trends.TrendEngine;
import dev.eventide.trends.query.WorkloadChange;

/**
 * A {@link TrendEngine} whose workload can change while events flow (docs/trends-query-language.md,
 * "Changing the workload"): the HAMLET engines, from {@link Engines#createChangeable}.
 *
 * <pre>{@code
 * ChangeableTrendEngine engine = Engines.HAMLET.createChangeable(workload, System.out::println);
 * engine.process(Event.of("Request", 1_000, "driver", 7));
 * engine.change(WorkloadChange.remove(60_000, "pool_trips"));   // before any event at 60 s
 * engine.process(Event.of("Request", 61_000, "driver", 7));
 * engine.finish();
 * }</pre>
 */
public interface ChangeableTrendEngine extends TrendEngine {

  /**
   * Changes the workload from the change's time on: windows that end by then are emitted first, an
   * added query evaluates the windows that start at or after the change's time, and a removed
   * query's open windows give no results. Call it before the first event at or after its time.
   *
   * @throws IllegalArgumentException if the change is not later than the last event, or does not
   *     apply to the workload in force ({@link WorkloadChange#applyTo}), or an added query cannot
   *     be compiled; the engine is then unchanged
   */
  void change(WorkloadChange change);
}
