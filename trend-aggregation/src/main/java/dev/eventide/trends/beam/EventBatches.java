package dev.eventide.trends.beam;

import dev.eventide.trends.Event;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.values.KV;
import org.joda.time.Instant;

/**
 * Routed events gathered per key, to be sent as one element per key: the runner's work per element
 * (invoking the {@code DoFn}, looking its state up, setting its timer) is then paid once per key
 * and batch instead of once per event. A batch is timestamped at its earliest event, which holds
 * the watermark no later than any of its events would alone.
 */
final class EventBatches {
  /** How many events wait at most before they are sent, whatever the bundle's size. */
  static final int MAX_EVENTS = 10_000;

  /** Receives each batch with its timestamp. */
  interface Sink {
    void emit(KV<String, List<Event>> batch, Instant timestamp);
  }

  /**
   * A key's parts: equal exactly when the key strings they make ({@link RouteFn#key}) are, so that
   * the string is built once per batch, not once per event.
   */
  record Key(String versionTag, int unit, List<Object> group) {
    String text() {
      return RouteFn.key(versionTag, unit, group);
    }
  }

  private final Map<Key, List<Event>> byKey = new LinkedHashMap<>();
  private int events;

  void add(Key key, Event e) {
    byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(e);
    events++;
  }

  boolean full() {
    return events >= MAX_EVENTS;
  }

  /** Sends every key's batch, in the order the keys first came, and forgets them. */
  void flush(Sink sink) {
    for (Map.Entry<Key, List<Event>> batch : byKey.entrySet()) {
      long earliest = Long.MAX_VALUE;
      for (Event e : batch.getValue()) {
        earliest = Math.min(earliest, e.time());
      }
      sink.emit(KV.of(batch.getKey().text(), batch.getValue()), new Instant(earliest));
    }
    byKey.clear();
    events = 0;
  }
}
