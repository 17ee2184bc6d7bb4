package dev.eventide.trends.internal.engine;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Named counters of the work an engine or a {@link TrendPlan} did (events, bursts shared and split,
 * snapshots, ...), for benchmarks, tests and metrics. Not thread-safe.
 */
public final class Counters {
  private final Map<String, Long> values = new LinkedHashMap<>();

  public void add(String name, long delta) {
    values.merge(name, delta, Long::sum);
  }

  /** The counter's value (0 if never added to). */
  public long get(String name) {
    return values.getOrDefault(name, 0L);
  }

  public Map<String, Long> snapshot() {
    return Map.copyOf(values);
  }
}
