package dev.eventide.blockstore.internal.bag;

import java.util.ArrayList;
import java.util.List;

/**
 * Where a {@link TieredBag} keeps what must survive a checkpoint: the memory bucket's elements
 * (each already encoded, so an element is encoded once, when it is added, whether it stays in
 * memory or moves to a block) and size, and the manifest of the bag's blocks, which grows by
 * appends. On a runner these are state cells of the key and window, checkpointed with everything
 * else; {@link #inMemory()} is for tests and single-process use.
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

  /**
   * The blocks holding the rest of the bag, oldest first. A state that keeps block names only
   * returns {@link BlockInfo#untimed} entries.
   */
  List<BlockInfo> manifest();

  /** Names one more block, after the others: no rewrite of the manifest. */
  void appendToManifest(BlockInfo block);

  /** Replaces the manifest by some of its blocks, in their order (when others were deleted). */
  void replaceManifest(List<BlockInfo> blocks);

  void clearManifest();

  /** Plain fields, for tests. */
  static BagState inMemory() {
    return new BagState() {
      private final List<byte[]> memory = new ArrayList<>();
      private final List<BlockInfo> manifest = new ArrayList<>();
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
      public List<BlockInfo> manifest() {
        return List.copyOf(manifest);
      }

      @Override
      public void appendToManifest(BlockInfo block) {
        manifest.add(block);
      }

      @Override
      public void replaceManifest(List<BlockInfo> blocks) {
        manifest.clear();
        manifest.addAll(blocks);
      }

      @Override
      public void clearManifest() {
        manifest.clear();
      }
    };
  }
}
