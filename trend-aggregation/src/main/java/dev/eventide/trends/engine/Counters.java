package dev.eventide.trends.engine;

import java.util.LinkedHashMap;
import java.util.Map;

/** Named counters of the work an engine did, shared by its parts. */
final class Counters {
  private final Map<String, Long> values = new LinkedHashMap<>();

  void add(String name, long delta) {
    values.merge(name, delta, Long::sum);
  }

  Map<String, Long> snapshot() {
    return Map.copyOf(values);
  }
}
