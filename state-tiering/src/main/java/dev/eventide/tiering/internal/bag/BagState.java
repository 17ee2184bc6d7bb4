package dev.eventide.tiering.internal.bag;

import dev.eventide.blockstore.BlockName;
import java.util.ArrayList;
import java.util.List;

/**
 * Where a {@link TieredBag} keeps what must survive a checkpoint: the memory bucket's elements
 * (each already encoded with the bag's coder, so an element is encoded once, when it is added,
 * whether it stays in memory or moves to a block) and size, and the manifest of the bag's blocks,
 * which only grows by appends. On a runner these are Beam state cells of the key and window (two
 * {@code BagState}s and a {@code ValueState}), so they are checkpointed with everything else;
 * {@link #inMemory()} is for tests and single-process use.
 */
public interface BagState {

  /** The memory bucket's encoded elements, in insertion order. */
  Iterable<byte[]> memory();

  void addToMemory(byte[] encoded);

  /** Empties the memory bucket (its size goes back to zero). */
  void clearMemory();

  /** The memory bucket's size: {elements, encoded bytes}. */
  long[] memorySize();

  void setMemorySize(long elements, long bytes);

  /** The blocks holding the rest of the bag, oldest first. */
  List<BlockName> manifest();

  /** Names one more block, after the others: no rewrite of the manifest. */
  void appendToManifest(BlockName block);

  void clearManifest();

  /** Plain fields, for tests. */
  static BagState inMemory() {
    return new BagState() {
      private final List<byte[]> memory = new ArrayList<>();
      private final List<BlockName> manifest = new ArrayList<>();
      private long elements;
      private long bytes;

      @Override
      public Iterable<byte[]> memory() {
        return List.copyOf(memory);
      }

      @Override
      public void addToMemory(byte[] encoded) {
        memory.add(encoded);
      }

      @Override
      public void clearMemory() {
        memory.clear();
        elements = 0;
        bytes = 0;
      }

      @Override
      public long[] memorySize() {
        return new long[] {elements, bytes};
      }

      @Override
      public void setMemorySize(long elements, long bytes) {
        this.elements = elements;
        this.bytes = bytes;
      }

      @Override
      public List<BlockName> manifest() {
        return List.copyOf(manifest);
      }

      @Override
      public void appendToManifest(BlockName block) {
        manifest.add(block);
      }

      @Override
      public void clearManifest() {
        manifest.clear();
      }
    };
  }
}
