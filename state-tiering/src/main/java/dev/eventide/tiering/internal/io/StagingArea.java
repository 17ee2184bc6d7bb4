package dev.eventide.tiering.internal.io;

import dev.eventide.blockstore.BlockName;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * Blocks read ahead of a late firing (Aion's pre-staging), held until the firing takes them. The
 * area is bounded by a number of blocks: when it is full, pre-staging is skipped and the firing
 * reads on demand, so a burst of late events never turns into unbounded heap.
 *
 * <p>A block is taken once: a firing removes what it reads, so the window's state goes back to the
 * store (and the heap stays flat) until the next late event stages it again. A block nobody takes
 * (read on demand before its pre-stage finished, or purged) ages out.
 */
public final class StagingArea {
  private static final StagingArea SHARED = new StagingArea(4096, 60_000_000_000L);

  private record Staged(CompletableFuture<byte[]> read, long sinceNanos) {}

  private final Map<BlockName, Staged> staged = new LinkedHashMap<>(); // guarded; oldest first
  private final int capacity;
  private final long maxAgeNanos;
  private final LongSupplier nanoClock;

  /**
   * An area of at most {@code capacity} blocks; a block nobody took within {@code maxAgeNanos} (its
   * firing read it on demand, or its window was purged) is dropped.
   */
  public StagingArea(int capacity, long maxAgeNanos) {
    this(capacity, maxAgeNanos, System::nanoTime);
  }

  /** With {@code nanoClock} as the clock that ages staged blocks. */
  StagingArea(int capacity, long maxAgeNanos, LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
    if (capacity < 0 || maxAgeNanos < 0) {
      throw new IllegalArgumentException(
          "staging capacity and age must be >= 0, but were " + capacity + ", " + maxAgeNanos);
    }
    this.capacity = capacity;
    this.maxAgeNanos = maxAgeNanos;
  }

  /** The staging area of this JVM, shared by every tiered window. */
  public static StagingArea shared() {
    return SHARED;
  }

  /**
   * Stages the block's read if the block is not staged yet and there is room; returns whether it
   * did (if not, the read's result is simply not kept).
   */
  synchronized boolean offer(BlockName name, CompletableFuture<byte[]> read) {
    long now = nanoClock.getAsLong();
    Iterator<Staged> oldest = staged.values().iterator();
    while (oldest.hasNext()) {
      if (now - oldest.next().sinceNanos() <= maxAgeNanos) {
        break;
      }
      oldest.remove();
    }
    if (staged.containsKey(name) || staged.size() >= capacity) {
      return false;
    }
    staged.put(name, new Staged(read, now));
    return true;
  }

  /** Removes and returns the staged read of the block, or null if it is not staged. */
  synchronized CompletableFuture<byte[]> take(BlockName name) {
    Staged s = staged.remove(name);
    return s == null ? null : s.read();
  }

  /** Blocks staged or being staged. */
  public synchronized int size() {
    return staged.size();
  }
}
