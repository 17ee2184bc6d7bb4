package dev.eventide.blockstore.internal.bag;

import dev.eventide.blockstore.BlockName;

/**
 * A block of a {@link TieredBag} as its manifest names it: where it is, and, when the bag knows its
 * elements' times, the range of those times and how many elements it holds, so that a read from a
 * time or an expiry can skip or delete whole blocks without fetching them.
 *
 * @param name the block in the store
 * @param minTime the earliest element time in the block; {@link Long#MIN_VALUE} when unknown
 * @param maxTime the latest element time in the block; {@link Long#MAX_VALUE} when unknown
 * @param elements how many elements the block holds; {@link #UNKNOWN_COUNT} when unknown
 */
public record BlockInfo(BlockName name, long minTime, long maxTime, long elements) {
  public static final long UNKNOWN_COUNT = -1;

  public BlockInfo {
    if (name == null) {
      throw new IllegalArgumentException("a block needs a name");
    }
    if (minTime > maxTime) {
      throw new IllegalArgumentException(
          "block " + name + ": time range [" + minTime + ", " + maxTime + "] is empty");
    }
    if (elements < UNKNOWN_COUNT) {
      throw new IllegalArgumentException(
          "block " + name + ": " + elements + " elements, expected >= 0 or UNKNOWN_COUNT");
    }
  }

  /** A block known by its name alone (a manifest that keeps names only): it may hold any time. */
  public static BlockInfo untimed(BlockName name) {
    return new BlockInfo(name, Long.MIN_VALUE, Long.MAX_VALUE, UNKNOWN_COUNT);
  }

  /** Whether the block may hold an element at or after {@code time}. */
  public boolean reaches(long time) {
    return maxTime >= time;
  }
}
