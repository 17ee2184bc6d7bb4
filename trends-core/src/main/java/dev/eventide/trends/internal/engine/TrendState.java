package dev.eventide.trends.internal.engine;

import dev.eventide.trends.Event;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The state of one sharing unit in one partition (its GROUPBY and equivalence values): the open
 * window instances with every member query's running sums, and the burst of the unit's shared
 * Kleene type still waiting to be evaluated. Advanced only by its {@link TrendPlan}; encoded by
 * {@link TrendStateCodec}. Not thread-safe.
 */
public final class TrendState {
  final int unit;
  final List<Object> partition;

  /** The time of the latest event advanced; later events may not be earlier. */
  long lastTime = Long.MIN_VALUE;

  /** Windows ending by this time are closed: later events may not be earlier than it. */
  long closedUpTo = Long.MIN_VALUE;

  /**
   * Windows are opened only if they start in [windowsFrom, windowsUntil): the span of a workload's
   * version when the workload changes while running ({@link TrendPlan#limitWindows}).
   */
  long windowsFrom = Long.MIN_VALUE;

  long windowsUntil = Long.MAX_VALUE;

  /** Members removed from the workload ({@link TrendPlan#retire}): no state, no results. */
  java.util.BitSet retired;

  /** Open windows in increasing start order. */
  final ArrayDeque<WindowState> windows = new ArrayDeque<>();

  /** Events of the shared Kleene type not evaluated yet, in time order. */
  final List<Event> burst = new ArrayList<>();

  TrendState(int unit, List<Object> partition) {
    this.unit = unit;
    this.partition = List.copyOf(partition);
  }

  /** The index of the sharing unit in its plan. */
  public int unit() {
    return unit;
  }

  /** The partition's values: the unit's GROUPBY attributes, then its equivalence attributes. */
  public List<Object> partition() {
    return partition;
  }

  boolean isRetired(int member) {
    return retired != null && retired.get(member);
  }

  /** Whether no window is open and no event waits: the state may be dropped. */
  public boolean isEmpty() {
    return windows.isEmpty() && burst.isEmpty();
  }

  /** The end of the earliest open window, or {@link Long#MAX_VALUE} if none is open. */
  long nextWindowEnd() {
    return windows.isEmpty() ? Long.MAX_VALUE : windows.peekFirst().end;
  }

  /** One window instance: the state of each member query. */
  static final class WindowState {
    final long start;
    final long end;
    final QueryWindow[] members;

    WindowState(long start, long end, int members) {
      this.start = start;
      this.end = end;
      this.members = new QueryWindow[members];
      for (int i = 0; i < members; i++) {
        this.members[i] = new QueryWindow();
      }
    }
  }
}
