package dev.eventide.tiering.bag;

import dev.eventide.tiering.store.BlockName;
import java.util.List;

/**
 * Where a {@link TieredBag} keeps what must survive a checkpoint: the memory bucket's elements and
 * size, and the manifest of the bag's blocks. On a runner these are Beam state cells of the key and
 * window (a {@code BagState} and two {@code ValueState}s), so they are checkpointed with everything
 * else; {@link #inMemory()} is for tests and single-process use.
 */
public interface BagState<T> {

  /** The memory bucket's elements, in insertion order. */
  Iterable<T> memory();

  void addToMemory(T element);

  /** Empties the memory bucket (its size goes back to zero). */
  void clearMemory();

  /** The memory bucket's size: {elements, encoded bytes}. */
  long[] memorySize();

  void setMemorySize(long elements, long bytes);

  /** The blocks holding the rest of the bag, oldest first. */
  List<BlockName> manifest();

  void setManifest(List<BlockName> blocks);

  /** Plain fields, for tests. */
  static <T> BagState<T> inMemory() {
    return new BagState<>() {
      private final List<T> memory = new java.util.ArrayList<>();
      private long elements;
      private long bytes;
      private List<BlockName> manifest = List.of();

      @Override
      public Iterable<T> memory() {
        return List.copyOf(memory);
      }

      @Override
      public void addToMemory(T element) {
        memory.add(element);
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
        return manifest;
      }

      @Override
      public void setManifest(List<BlockName> blocks) {
        this.manifest = List.copyOf(blocks);
      }
    };
  }
}
