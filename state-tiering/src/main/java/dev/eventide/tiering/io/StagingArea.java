package dev.eventide.tiering.io;

import dev.eventide.tiering.store.BlockName;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Blocks read ahead of a late firing (Aion's pre-staging), held until the firing takes them. The
 * area is bounded by a number of blocks: when it is full, pre-staging is skipped and the firing
 * reads on demand, so a burst of late events never turns into unbounded heap.
 *
 * <p>A block is taken once: a firing removes what it reads, so the window's state goes back to the
 * store (and the heap stays flat) until the next late event stages it again.
 */
public final class StagingArea {
  private static final StagingArea SHARED = new StagingArea(4096);

  private final Map<BlockName, CompletableFuture<byte[]>> staged = new HashMap<>(); // guarded
  private final int capacity;

  public StagingArea(int capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException("staging capacity must be >= 0, but was " + capacity);
    }
    this.capacity = capacity;
  }

  /** The staging area of this JVM, shared by every tiered window. */
  public static StagingArea shared() {
    return SHARED;
  }

  /** Stages the block with the read if it is not staged yet and there is room. */
  synchronized boolean offer(BlockName name, Supplier<CompletableFuture<byte[]>> read) {
    if (staged.containsKey(name) || staged.size() >= capacity) {
      return false;
    }
    staged.put(name, read.get());
    return true;
  }

  /** Removes and returns the staged read of the block, or null if it is not staged. */
  synchronized CompletableFuture<byte[]> take(BlockName name) {
    return staged.remove(name);
  }

  /** Blocks staged or being staged. */
  public synchronized int size() {
    return staged.size();
  }
}
