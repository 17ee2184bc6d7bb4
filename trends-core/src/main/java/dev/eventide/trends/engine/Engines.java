package dev.eventide.trends.engine;

import dev.eventide.trends.Event;
import dev.eventide.trends.Sharing;
import dev.eventide.trends.TrendEngine;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.internal.engine.CompiledQuery;
import dev.eventide.trends.internal.engine.GretaEngine;
import dev.eventide.trends.internal.engine.IncrementalEngine;
import dev.eventide.trends.internal.engine.TrendPlan;
import dev.eventide.trends.query.Workload;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * The engines by name, as the command line and the benchmarks choose them.
 *
 * <pre>{@code
 * Workload workload = Workload.parse(queries);
 * Engines.check(workload);   // refuses, before any event is read, a query too large to evaluate
 * List<TrendResult> results = Engines.ofCliName("hamlet").evaluate(workload, events);
 * }</pre>
 */
public enum Engines {
  /** Running sums, bursts shared when the benefit model says it pays ({@link TrendPlan}). */
  HAMLET,
  /** Running sums, every burst of a shared Kleene type shared (the static optimizer). */
  HAMLET_STATIC,
  /** Running sums, each query on its own: the incremental executor without sharing. */
  UNSHARED,
  /** {@link GretaEngine}: each query on its own, every edge visited (the baseline). */
  GRETA;

  public TrendEngine create(Workload workload, Consumer<TrendResult> sink) {
    return this == GRETA ? GretaEngine.create(workload, sink) : createChangeable(workload, sink);
  }

  /**
   * Creates an engine whose workload can change while it runs.
   *
   * @throws UnsupportedOperationException for {@link #GRETA}, which evaluates a fixed workload
   */
  public ChangeableTrendEngine createChangeable(Workload workload, Consumer<TrendResult> sink) {
    return switch (this) {
      case HAMLET -> new IncrementalEngine(TrendPlan.compile(workload, Sharing.DYNAMIC), sink);
      case HAMLET_STATIC ->
          new IncrementalEngine(TrendPlan.compile(workload, Sharing.STATIC), sink);
      case UNSHARED -> new IncrementalEngine(TrendPlan.compile(workload, Sharing.NONE), sink);
      case GRETA ->
          throw new UnsupportedOperationException(
              "the greta engine evaluates a fixed workload: changes need hamlet, hamlet-static or"
                  + " unshared");
    };
  }

  /**
   * Checks that every query of the workload can be evaluated (its automaton fits), before any event
   * is read.
   *
   * @throws IllegalArgumentException naming the query and what is too large
   */
  public static void check(Workload workload) {
    CompiledQuery.compile(workload.queries());
  }

  /** Runs the engine over events in time order and returns all results in order. */
  public List<TrendResult> evaluate(Workload workload, Iterable<Event> events) {
    List<TrendResult> results = new ArrayList<>();
    TrendEngine engine = create(workload, results::add);
    events.forEach(engine::process);
    engine.finish();
    return results;
  }

  /**
   * The command-line spelling: {@code hamlet}, {@code hamlet-static}, {@code unshared}, {@code
   * greta}.
   */
  public String cliName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  public static Engines ofCliName(String name) {
    for (Engines e : values()) {
      if (e.cliName().equals(name)) {
        return e;
      }
    }
    throw new IllegalArgumentException(
        "unknown engine '" + name + "': expected hamlet, hamlet-static, unshared or greta");
  }
}
