package dev.eventide.tiering.internal.bag;

import dev.eventide.blockstore.BlockName;
import dev.eventide.blockstore.BlockStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Set;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.util.CoderUtils;

/**
 * The elements of one key and window, in two tiers (Aion's m-bucket and p-bucket): a memory bucket
 * bounded by a number of elements and of encoded bytes, and blocks in a {@link BlockStore}, each a
 * run of elements encoded with the element {@link Coder}. When the memory bucket would exceed a
 * bound, it is written out as one block; the block is durable before the manifest names it, and the
 * memory bucket is emptied only after, so a crash at any point loses nothing (at worst a block no
 * manifest names, which {@link #collectGarbage()} deletes).
 *
 * <p>{@link #read()} is lazy: the memory bucket first, then each block fetched and decoded only
 * when iteration reaches it, so a window larger than memory can be folded element by element. Not
 * thread-safe: one per key and window, as Beam state is.
 */
public final class TieredBag<T> {

  /** The bounds of the memory bucket; {@code 0} elements means everything goes to blocks. */
  public record Limits(long elements, long bytes) {
    public Limits {
      if (elements < 0 || bytes < 0) {
        throw new IllegalArgumentException(
            "memory bucket bounds must be >= 0, but were "
                + elements
                + " elements, "
                + bytes
                + " bytes");
      }
    }
  }

  private final String owner;
  private final Coder<T> coder;
  private final BagState state;
  private final BlockStore store;
  private final Limits limits;

  public TieredBag(String owner, Coder<T> coder, BagState state, BlockStore store, Limits limits) {
    this.owner = owner;
    this.coder = coder;
    this.state = state;
    this.store = store;
    this.limits = limits;
  }

  /**
   * Adds an element; writes the memory bucket out first if the element would not fit. The element
   * is encoded here, once: its size is the length of that encoding, and the same bytes go to the
   * memory bucket or to a block.
   */
  public void add(T element) throws IOException {
    byte[] encoded = CoderUtils.encodeToByteArray(coder, element);
    long size = encoded.length;
    long[] memory = state.memorySize();
    if (memory[0] + 1 > limits.elements() || memory[1] + size > limits.bytes()) {
      destage();
      memory = state.memorySize();
    }
    if (limits.elements() == 0 || size > limits.bytes()) {
      // Does not fit in memory at all: a block of its own.
      appendBlock(List.of(encoded));
      return;
    }
    state.addToMemory(encoded);
    state.setMemorySize(memory[0] + 1, memory[1] + size);
  }

  /** Writes the memory bucket out as one block and empties it (nothing to do if it is empty). */
  public void destage() throws IOException {
    destage(0);
  }

  /**
   * Writes the memory bucket out as one block, keeping its first {@code keep} elements in memory
   * (Aion's bootstrap fraction: a late firing can start on them while the blocks stream in).
   */
  public void destage(long keep) throws IOException {
    List<byte[]> elements = new ArrayList<>();
    state.memory().forEach(elements::add);
    if (elements.size() <= keep) {
      return;
    }
    int kept = (int) Math.max(0, keep);
    appendBlock(elements.subList(kept, elements.size()));
    state.clearMemory();
    long bytes = 0;
    for (byte[] element : elements.subList(0, kept)) {
      state.addToMemory(element);
      bytes += element.length;
    }
    state.setMemorySize(kept, bytes);
  }

  private void appendBlock(List<byte[]> encoded) throws IOException {
    BlockName name = store.write(owner, block(encoded)); // durable from here on
    state.appendToManifest(name);
  }

  /** The blocks of this bag, oldest first. */
  public List<BlockName> blocks() {
    return state.manifest();
  }

  /** The memory bucket's encoded bytes. */
  public long memoryBytes() {
    return state.memorySize()[1];
  }

  /**
   * All elements, memory bucket first, then the blocks in the order they were written; blocks are
   * read as iteration reaches them. A block that cannot be read fails the iteration with an {@link
   * UncheckedIOException} naming it.
   */
  public Iterable<T> read() {
    List<byte[]> memory = new ArrayList<>();
    state.memory().forEach(memory::add);
    List<BlockName> manifest = state.manifest();
    return () ->
        new Iterator<T>() {
          private Iterator<T> current = decodeLazily(memory).iterator();
          private int nextBlock;

          @Override
          public boolean hasNext() {
            while (!current.hasNext() && nextBlock < manifest.size()) {
              BlockName name = manifest.get(nextBlock++);
              try {
                current = decode(name, store.read(name)).iterator();
              } catch (IOException e) {
                throw new UncheckedIOException(e.getMessage(), e);
              }
            }
            return current.hasNext();
          }

          @Override
          public T next() {
            if (!hasNext()) {
              throw new NoSuchElementException();
            }
            return current.next();
          }
        };
  }

  /** Deletes the bag: its blocks, its manifest and its memory bucket. */
  public void clear() throws IOException {
    for (BlockName name : state.manifest()) {
      store.delete(name);
    }
    state.clearManifest();
    state.clearMemory();
  }

  /**
   * Deletes the owner's blocks that the manifest does not name (left by a write whose manifest
   * update was lost, e.g. to a failure before a checkpoint); returns how many.
   */
  public int collectGarbage() throws IOException {
    Set<BlockName> named = new HashSet<>(state.manifest());
    int deleted = 0;
    for (BlockName name : store.list(owner)) {
      if (!named.contains(name)) {
        store.delete(name);
        deleted++;
      }
    }
    return deleted;
  }

  /** A block: the element count, then each encoded element with its length. */
  private static byte[] block(List<byte[]> encoded) throws IOException {
    int size = Integer.BYTES;
    for (byte[] element : encoded) {
      size += Integer.BYTES + element.length;
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(size);
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(encoded.size());
    for (byte[] element : encoded) {
      out.writeInt(element.length);
      out.write(element);
    }
    out.flush();
    return bytes.toByteArray();
  }

  /** The memory bucket's elements, each decoded as iteration reaches it. */
  private Iterable<T> decodeLazily(List<byte[]> encoded) {
    return () ->
        new Iterator<T>() {
          private final Iterator<byte[]> next = encoded.iterator();

          @Override
          public boolean hasNext() {
            return next.hasNext();
          }

          @Override
          public T next() {
            try {
              return CoderUtils.decodeFromByteArray(coder, next.next());
            } catch (IOException e) {
              throw new UncheckedIOException(
                  "the memory bucket of " + owner + " does not decode with " + coder, e);
            }
          }
        };
  }

  private List<T> decode(BlockName name, byte[] block) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(block));
    int count = in.readInt();
    List<T> elements = new ArrayList<>(Math.max(0, Math.min(count, 1 << 16)));
    for (int i = 0; i < count; i++) {
      byte[] encoded = new byte[in.readInt()];
      in.readFully(encoded);
      try {
        elements.add(CoderUtils.decodeFromByteArray(coder, encoded));
      } catch (IOException e) {
        throw new IOException(
            "block "
                + name
                + " of "
                + owner
                + " does not decode with "
                + coder
                + ": "
                + e.getMessage(),
            e);
      }
    }
    return elements;
  }
}
