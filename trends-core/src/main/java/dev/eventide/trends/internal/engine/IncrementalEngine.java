package dev.eventide.trends.internal.engine;

import dev.eventide.trends.Event;
import dev.eventide.trends.TrendEngine;
import dev.eventide.trends.TrendResult;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A {@link TrendEngine} over a {@link TrendPlan}: one {@link TrendState} per (unit, partition),
 * dropped once its windows are closed, so memory is bounded by the open windows. Results of the
 * partitions of one group are combined and emitted in the order of {@link WindowedEngine}: by
 * window end, window start, query, group.
 *
 * <p>Counters: {@code events}, {@code windowsClosed}, {@code bursts}, {@code burstEvents}, {@code
 * sharedBursts}, {@code splitBursts}, {@code snapshots} (a shared map applied to one query in one
 * window).
 */
public final class IncrementalEngine implements TrendEngine {
  private final TrendPlan plan;
  private final Consumer<TrendResult> sink;
  private final Counters counters = new Counters();
  private final List<Map<List<Object>, TrendState>> states = new ArrayList<>();

  /** Per unit, the earliest end of an open window (Long.MAX_VALUE if none). */
  private final long[] nextEnd;

  private long lastTime = Long.MIN_VALUE;

  public IncrementalEngine(TrendPlan plan, Consumer<TrendResult> sink) {
    this.plan = plan;
    this.sink = sink;
    this.nextEnd = new long[plan.unitCount()];
    java.util.Arrays.fill(nextEnd, Long.MAX_VALUE);
    for (int u = 0; u < plan.unitCount(); u++) {
      states.add(new HashMap<>());
    }
  }

  @Override
  public void process(Event e) {
    lastTime = WindowedEngine.inTimeOrder(lastTime, e);
    close(e.time());
    List<Event> one = List.of(e);
    boolean read = false;
    for (TrendPlan.Route r : plan.route(e)) {
      TrendState state =
          states.get(r.unit()).computeIfAbsent(r.partition(), p -> plan.newState(r.unit(), p));
      plan.advance(state, one, counters);
      nextEnd[r.unit()] = Math.min(nextEnd[r.unit()], plan.nextWindowEnd(state));
      read = true;
    }
    if (read) {
      counters.add("events", 1);
    }
  }

  @Override
  public void finish() {
    close(Long.MAX_VALUE);
  }

  @Override
  public Map<String, Long> statistics() {
    return counters.snapshot();
  }

  private void close(long time) {
    Map<List<Object>, WindowResult> combined = new LinkedHashMap<>();
    for (int u = 0; u < nextEnd.length; u++) {
      if (nextEnd[u] > time) {
        continue;
      }
      long next = Long.MAX_VALUE;
      for (Iterator<TrendState> it = states.get(u).values().iterator(); it.hasNext(); ) {
        TrendState state = it.next();
        for (WindowResult r : plan.closeWindows(state, time, counters)) {
          combined.merge(
              List.of(r.queryIndex(), r.windowStart(), r.windowEnd(), r.group()),
              r,
              WindowResult::combine);
        }
        if (state.isEmpty()) {
          it.remove();
        } else {
          next = Math.min(next, plan.nextWindowEnd(state));
        }
      }
      nextEnd[u] = next;
    }
    if (combined.isEmpty()) {
      return;
    }
    List<WindowResult> results = new ArrayList<>(combined.values());
    results.sort(
        Comparator.comparingLong(WindowResult::windowEnd)
            .thenComparingLong(WindowResult::windowStart)
            .thenComparingInt(WindowResult::queryIndex)
            .thenComparing(r -> r.namedGroup().toString()));
    for (WindowResult r : results) {
      sink.accept(r.toTrendResult());
    }
  }
}
