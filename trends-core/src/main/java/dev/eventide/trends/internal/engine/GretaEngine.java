package dev.eventide.trends.internal.engine;

import dev.eventide.trends.Event;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.query.Workload;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The non-shared baseline: every query evaluated on its own by online trend aggregation (GRETA,
 * Section 3.2 of the HAMLET paper), each event stored and processed once per query that matches it.
 * Cost per window: about {@code k × n²} edge visits for k queries and n events (Equation 4, for
 * every event). Counters: {@code edgesVisited}.
 */
public final class GretaEngine extends WindowedEngine {
  private final Counters counters;

  private GretaEngine(List<Unit> units, Counters counters, Consumer<TrendResult> sink) {
    super(units, sink);
    this.counters = counters;
  }

  /** Returns an engine for the workload that hands each result to the sink. */
  public static GretaEngine create(Workload workload, Consumer<TrendResult> sink) {
    Counters counters = new Counters();
    List<Unit> units =
        CompiledQuery.compile(workload.queries()).stream()
            .map(q -> (Unit) new Alone(q, counters))
            .toList();
    return new GretaEngine(units, counters, sink);
  }

  @Override
  public Map<String, Long> statistics() {
    return counters.snapshot();
  }

  /** One query on its own. */
  static final class Alone extends Unit {
    private final Counters counters;

    Alone(CompiledQuery q, Counters counters) {
      super(List.of(q));
      this.counters = counters;
    }

    @Override
    Executor newExecutor(long windowStart, long windowEnd) {
      CompiledQuery q = members.get(0);
      TrendRun run = new TrendRun(q, windowStart, windowEnd);
      return new Executor() {
        @Override
        public void onEvent(Event e) {
          if (q.matches(e)) {
            run.onEvent(e);
          }
        }

        @Override
        public Map<CompiledQuery, TrendSums> close() {
          counters.add("edgesVisited", run.edgesVisited());
          return Map.of(q, run.close());
        }
      };
    }
  }
}
