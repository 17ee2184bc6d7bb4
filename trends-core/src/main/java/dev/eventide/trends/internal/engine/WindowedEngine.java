package dev.eventide.trends.internal.engine;

import dev.eventide.trends.Event;
import dev.eventide.trends.TrendEngine;
import dev.eventide.trends.TrendResult;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * What every engine shares: it splits the stream by unit (a query, or queries executed together),
 * partition (GROUPBY and equivalence attributes: a trend's events all share them) and window
 * instance, hands each slice to an {@link Executor}, and merges the partitions of a group into one
 * result per (query, window, group) when the window closes.
 */
abstract class WindowedEngine implements TrendEngine {

  /** Evaluates some queries over one window of one partition. */
  interface Executor {
    /** The next event of one of the unit's types in this window and partition. */
    void onEvent(Event e);

    /** The aggregates of each query of the unit over the window. */
    Map<CompiledQuery, TrendSums> close();
  }

  /** Queries executed together: same window, same partition attributes. */
  abstract static class Unit {
    final List<CompiledQuery> members;
    final Set<String> types = new LinkedHashSet<>();
    final List<String> partitionAttributes;
    final SlidingWindows windows;

    /** Open executors by window start, then partition key. */
    final TreeMap<Long, Map<List<Object>, Executor>> open = new TreeMap<>();

    Unit(List<CompiledQuery> members) {
      this.members = List.copyOf(members);
      members.forEach(m -> types.addAll(m.types));
      CompiledQuery first = members.get(0);
      this.partitionAttributes = first.partitionAttributes;
      this.windows = SlidingWindows.of(first.query.within(), first.query.slide());
    }

    abstract Executor newExecutor(long windowStart, long windowEnd);
  }

  private final List<Unit> units;
  private final Consumer<TrendResult> sink;
  private long lastTime = Long.MIN_VALUE;

  WindowedEngine(List<Unit> units, Consumer<TrendResult> sink) {
    this.units = units;
    this.sink = sink;
  }

  @Override
  public void process(Event e) {
    lastTime = inTimeOrder(lastTime, e);
    close(e.time());
    for (Unit unit : units) {
      if (!unit.types.contains(e.type())) {
        continue;
      }
      List<Object> key = partitionKey(e, unit.partitionAttributes);
      if (key == null) {
        continue;
      }
      long last = unit.windows.lastIndex(e.time());
      for (long k = unit.windows.firstIndex(e.time()); k <= last; k++) {
        long start = unit.windows.start(k);
        long end = unit.windows.end(k);
        unit.open
            .computeIfAbsent(start, s -> new HashMap<>())
            .computeIfAbsent(key, x -> unit.newExecutor(start, end))
            .onEvent(e);
      }
    }
  }

  @Override
  public void finish() {
    close(Long.MAX_VALUE);
  }

  /** Closes the windows that end at or before the time and emits their results in order. */
  private void close(long time) {
    List<TrendResult> results = new ArrayList<>();
    List<Integer> order = new ArrayList<>();
    for (Unit unit : units) {
      while (!unit.open.isEmpty() && unit.windows.endOf(unit.open.firstKey()) <= time) {
        var window = unit.open.pollFirstEntry();
        long start = window.getKey();
        Map<CompiledQuery, Map<List<Object>, TrendSums>> groups = new LinkedHashMap<>();
        for (var partition : window.getValue().entrySet()) {
          for (var perQuery : partition.getValue().close().entrySet()) {
            CompiledQuery q = perQuery.getKey();
            List<Object> group = partition.getKey().subList(0, q.query.groupBy().size());
            groups
                .computeIfAbsent(q, x -> new HashMap<>())
                .computeIfAbsent(group, x -> TrendSums.empty(q.shape))
                .add(perQuery.getValue());
          }
        }
        for (var perQuery : groups.entrySet()) {
          CompiledQuery q = perQuery.getKey();
          for (var group : perQuery.getValue().entrySet()) {
            if (group.getValue().isEmpty()) {
              continue;
            }
            Map<String, Object> named = new LinkedHashMap<>();
            for (int i = 0; i < q.query.groupBy().size(); i++) {
              named.put(q.query.groupBy().get(i), group.getKey().get(i));
            }
            results.add(
                new TrendResult(
                    q.query.name(),
                    named,
                    start,
                    unit.windows.endOf(start),
                    format(q, group.getValue())));
            order.add(q.index);
          }
        }
      }
    }
    List<Integer> indices = new ArrayList<>();
    for (int i = 0; i < results.size(); i++) {
      indices.add(i);
    }
    indices.sort(
        Comparator.<Integer>comparingLong(i -> results.get(i).windowEnd())
            .thenComparingLong(i -> results.get(i).windowStart())
            .thenComparingInt(order::get)
            .thenComparing(i -> results.get(i).group().toString()));
    indices.forEach(i -> sink.accept(results.get(i)));
  }

  /**
   * The time of an engine's next event, which may not be earlier than the last one's.
   *
   * @throws IllegalArgumentException if it is
   */
  static long inTimeOrder(long lastTime, Event e) {
    if (e.time() < lastTime) {
      throw new IllegalArgumentException(
          "events must arrive in time order, but " + e + " came after time " + lastTime);
    }
    return e.time();
  }

  /** The event's values of the attributes, numbers normalised; null if one is missing. */
  static List<Object> partitionKey(Event e, List<String> attributes) {
    if (attributes.isEmpty()) {
      return List.of();
    }
    List<Object> key = new ArrayList<>(attributes.size());
    for (String attribute : attributes) {
      Object value = e.attribute(attribute);
      if (value == null) {
        return null;
      }
      key.add(value instanceof BigDecimal d ? d.stripTrailingZeros() : value);
    }
    return key;
  }

  /**
   * The query's aggregate as the exact string of the results format; null for AVG, MIN and MAX when
   * no trend contains an event of the aggregated type (possible under OR).
   */
  static String format(CompiledQuery q, TrendSums sums) {
    return switch (q.query.aggregation().kind()) {
      case COUNT_TRENDS -> sums.count.toString();
      case COUNT_EVENTS -> sums.events.toString();
      case SUM -> plain(sums.sum.toBigDecimal());
      case AVG ->
          sums.events.signum() == 0
              ? null
              : plain(
                  sums.sum
                      .toBigDecimal()
                      .divide(new BigDecimal(sums.events.toBigInteger()), MathContext.DECIMAL128));
      case MIN -> plain(sums.min);
      case MAX -> plain(sums.max);
    };
  }

  private static String plain(BigDecimal d) {
    return d == null ? null : d.stripTrailingZeros().toPlainString();
  }
}
