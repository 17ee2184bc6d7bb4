package dev.eventide.trends.beam;

import dev.eventide.trends.Event;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.MapState;

/**
 * The events one key of {@link TrendAggregateFn} (or a shard of {@link SequencerFn}) has received
 * but not yet evaluated: new arrivals in a bag (one append each), and, once a firing has seen them,
 * the ones still in the future sorted into slices of SLIDE in a map, which an index ({@link
 * Progress#pendingSlices}) keeps with each slice's earliest time. A firing at {@code t} takes the
 * arrivals and only the slices that reach {@code t}, so an event is read about once however far
 * ahead of the watermark the input runs (a bounded file is read long before its windows close),
 * where one bag would be read whole at every window end. Rewritten: the slice holding {@code t},
 * and each future slice that new arrivals join.
 *
 * <p>One instance per key and firing, over that key's state cells; not thread-safe.
 */
final class PendingEvents {
  private final BagState<Event> arrivals;
  private final MapState<Long, List<Event>> slices;
  private final NavigableMap<Long, Long> index;
  private final long slide;

  /**
   * @param index each slice stored in {@code slices} and its earliest event time: kept by the
   *     caller in its state, and updated here
   */
  PendingEvents(
      BagState<Event> arrivals,
      MapState<Long, List<Event>> slices,
      NavigableMap<Long, Long> index,
      long slide) {
    this.arrivals = arrivals;
    this.slices = slices;
    this.index = index;
    this.slide = slide;
  }

  /** Schedules the reads of {@link #takeUpTo(long) takeUpTo(t)}. */
  void readLater(long t) {
    arrivals.readLater();
    for (long s : index.headMap(slice(t), true).keySet()) {
      slices.get(s).readLater();
    }
  }

  /**
   * Removes and returns the pending events at or before {@code t}, in no particular order, and
   * files the later arrivals into their slices.
   */
  List<Event> takeUpTo(long t) {
    List<Event> due = new ArrayList<>();
    Map<Long, List<Event>> later = new TreeMap<>();
    boolean arrived = false;
    for (Event e : arrivals.read()) {
      arrived = true;
      if (e.time() <= t) {
        due.add(e);
      } else {
        later.computeIfAbsent(slice(e.time()), s -> new ArrayList<>()).add(e);
      }
    }
    if (arrived) {
      arrivals.clear();
    }
    Iterator<Long> reached = index.headMap(slice(t), true).keySet().iterator();
    while (reached.hasNext()) {
      long s = reached.next();
      for (Event e : stored(s)) {
        if (e.time() <= t) {
          due.add(e);
        } else {
          later.computeIfAbsent(s, k -> new ArrayList<>()).add(e); // the slice holding t
        }
      }
      slices.remove(s);
      reached.remove();
    }
    later.forEach(
        (s, events) -> {
          List<Event> merged = new ArrayList<>();
          if (index.containsKey(s)) {
            stored(s).forEach(merged::add);
          }
          merged.addAll(events);
          long min = Long.MAX_VALUE;
          for (Event e : merged) {
            min = Math.min(min, e.time());
          }
          slices.put(s, merged);
          index.put(s, min);
        });
    return due;
  }

  /** The earliest time of a pending event filed in a slice, or {@link Long#MAX_VALUE}. */
  long earliestFiled() {
    return index.isEmpty() ? Long.MAX_VALUE : index.firstEntry().getValue();
  }

  private Iterable<Event> stored(long s) {
    List<Event> events = slices.get(s).read();
    return events == null ? List.of() : events;
  }

  private long slice(long t) {
    return Math.floorDiv(t, slide);
  }
}
