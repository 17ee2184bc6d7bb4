package dev.eventide.blockstore.internal.bag;

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
import java.util.function.LongPredicate;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * The elements of one owner (a key and window, a key), in two tiers (Aion's m-bucket and p-bucket):
 * a memory bucket bounded by a number of elements and of encoded bytes, and immutable blocks in a
 * {@link BlockStore}, each a run of encoded elements. When the memory bucket would exceed a bound,
 * it is written out as one block; the block is durable before the manifest names it, and the memory
 * bucket is emptied only after, so a crash at any point loses nothing (at worst a block no manifest
 * names, which {@link #collectGarbage()} deletes).
 *
 * <p>A bag given the time of its elements ({@code timeOf}) records each block's time range and
 * element count in the manifest: {@link #readFrom(long)} then fetches only the blocks that reach
 * the time asked for, and {@link #deleteBlocks(LongPredicate)} expires whole blocks by their latest
 * time without fetching them.
 *
 * <p>Reads are lazy: the memory bucket first, then each block fetched and decoded only when
 * iteration reaches it, so a bag larger than memory can be folded element by element. Not
 * thread-safe: one per owner and firing, as runner state is.
 *
 * <pre>{@code
 * TieredBag<Long> bag = new TieredBag<>("key-1@window-0", codec, BagState.inMemory(), store,
 *     new TieredBag.Limits(1_000, 1 << 20));
 * bag.add(42L);
 * long sum = 0;
 * for (long value : bag.read()) {
 *   sum += value;
 * }
 * bag.clear();
 * }</pre>
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
  private final ElementCodec<T> codec;
  private final ToLongFunction<? super T> timeOf; // null: the blocks' time ranges are unknown
  private final BagState state;
  private final BlockStore store;
  private final Limits limits;

  /** A bag whose blocks are known by name only. */
  public TieredBag(
      String owner, ElementCodec<T> codec, BagState state, BlockStore store, Limits limits) {
    this(owner, codec, null, state, store, limits);
  }

  /** A bag whose blocks carry the time range of their elements, as {@code timeOf} gives it. */
  public TieredBag(
      String owner,
      ElementCodec<T> codec,
      ToLongFunction<? super T> timeOf,
      BagState state,
      BlockStore store,
      Limits limits) {
    this.owner = owner;
    this.codec = codec;
    this.timeOf = timeOf;
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
    byte[] encoded = codec.encode(element);
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

  /**
   * Adds elements to the memory bucket, then writes the bucket out as one block if it exceeds a
   * bound: a batch goes to one block, however small the bounds (which the bucket may exceed by the
   * batch until then).
   */
  public void addAll(Iterable<? extends T> elements) throws IOException {
    long[] memory = state.memorySize();
    long count = memory[0];
    long bytes = memory[1];
    for (T element : elements) {
      byte[] encoded = codec.encode(element);
      state.addToMemory(encoded);
      count++;
      bytes += encoded.length;
    }
    if (count == memory[0]) {
      return;
    }
    state.setMemorySize(count, bytes);
    if (count > limits.elements() || bytes > limits.bytes()) {
      destage();
    }
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
    rewriteMemory(elements.subList(0, kept));
  }

  private void appendBlock(List<byte[]> encoded) throws IOException {
    long minTime = Long.MIN_VALUE;
    long maxTime = Long.MAX_VALUE;
    long count = BlockInfo.UNKNOWN_COUNT;
    if (timeOf != null) {
      minTime = Long.MAX_VALUE;
      maxTime = Long.MIN_VALUE;
      for (byte[] element : encoded) {
        long time = timeOf.applyAsLong(codec.decode(element));
        minTime = Math.min(minTime, time);
        maxTime = Math.max(maxTime, time);
      }
      count = encoded.size();
    }
    BlockName name = store.write(owner, block(encoded)); // durable from here on
    state.appendToManifest(new BlockInfo(name, minTime, maxTime, count));
  }

  private void rewriteMemory(List<byte[]> encoded) {
    state.clearMemory();
    long bytes = 0;
    for (byte[] element : encoded) {
      state.addToMemory(element);
      bytes += element.length;
    }
    state.setMemorySize(encoded.size(), bytes);
  }

  /** The blocks of this bag, oldest first. */
  public List<BlockInfo> blocks() {
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
    return read(Long.MIN_VALUE);
  }

  /**
   * The elements at or after {@code time}, in the order of {@link #read()}, fetching only the
   * blocks whose time range reaches it. Only for a bag given the time of its elements.
   */
  public Iterable<T> readFrom(long time) {
    requireTimes("readFrom");
    return read(time);
  }

  private Iterable<T> read(long from) {
    List<byte[]> memory = new ArrayList<>();
    state.memory().forEach(memory::add);
    List<BlockInfo> manifest = state.manifest();
    return () ->
        new Iterator<T>() {
          private Iterator<byte[]> encoded = memory.iterator();
          private BlockInfo block; // null while in the memory bucket
          private int nextBlock;
          // Whether next holds the element to return: an element may itself be null (a value of a
          // nullable coder), so null cannot mean "none fetched".
          private boolean fetched;
          private T next;

          @Override
          public boolean hasNext() {
            while (!fetched) {
              while (!encoded.hasNext()) {
                if (!fetchNextBlock()) {
                  return false;
                }
              }
              T element = decoded(encoded.next(), block);
              if (from == Long.MIN_VALUE || timeOf.applyAsLong(element) >= from) {
                next = element;
                fetched = true;
              }
            }
            return true;
          }

          private boolean fetchNextBlock() {
            while (nextBlock < manifest.size()) {
              BlockInfo candidate = manifest.get(nextBlock++);
              if (candidate.reaches(from)) {
                try {
                  encoded = elementsOf(candidate).iterator();
                } catch (IOException e) {
                  throw new UncheckedIOException(e.getMessage(), e);
                }
                block = candidate;
                return true;
              }
            }
            return false;
          }

          @Override
          public T next() {
            if (!hasNext()) {
              throw new NoSuchElementException();
            }
            T element = next;
            next = null;
            fetched = false;
            return element;
          }
        };
  }

  /** The memory bucket's elements, in insertion order. */
  public Iterable<T> memory() {
    List<T> elements = new ArrayList<>();
    for (byte[] encoded : state.memory()) {
      elements.add(decoded(encoded, null));
    }
    return elements;
  }

  /**
   * Keeps in the memory bucket only the elements {@code keep} accepts (called once per element, in
   * order); the bucket is rewritten only if some go. Returns how many went.
   */
  public int retainInMemory(Predicate<? super T> keep) {
    return retainEncodedInMemory(encoded -> keep.test(decoded(encoded, null)));
  }

  /**
   * {@link #retainInMemory}, judging each element by its encoding, without decoding it: for an
   * encoding whose fields a caller can read in place (an element's time, say).
   */
  public int retainEncodedInMemory(Predicate<byte[]> keep) {
    List<byte[]> all = new ArrayList<>();
    state.memory().forEach(all::add);
    List<byte[]> kept = new ArrayList<>(all.size());
    for (byte[] encoded : all) {
      if (keep.test(encoded)) {
        kept.add(encoded);
      }
    }
    if (kept.size() < all.size()) {
      rewriteMemory(kept);
    }
    return all.size() - kept.size();
  }

  /**
   * Deletes the blocks whose latest element time passes {@code expiredAt}, from the manifest and
   * then from the store, and then every block of the owner the manifest does not name (one written
   * before a failure that lost the manifest's update). Returns how many blocks were deleted. In a
   * bag not given the time of its elements every block's latest time is unknown: {@link
   * Long#MAX_VALUE}.
   */
  public int deleteBlocks(LongPredicate expiredAt) throws IOException {
    List<BlockInfo> kept = new ArrayList<>();
    List<BlockInfo> gone = new ArrayList<>();
    for (BlockInfo block : state.manifest()) {
      (expiredAt.test(block.maxTime()) ? gone : kept).add(block);
    }
    if (gone.isEmpty()) {
      return 0;
    }
    if (kept.isEmpty()) {
      state.clearManifest();
    } else {
      state.replaceManifest(kept);
    }
    for (BlockInfo block : gone) {
      store.delete(block.name());
    }
    return gone.size() + collectGarbage();
  }

  /** Deletes the bag: its blocks, its manifest and its memory bucket. */
  public void clear() throws IOException {
    for (BlockInfo block : state.manifest()) {
      store.delete(block.name());
    }
    state.clearManifest();
    state.clearMemory();
  }

  /**
   * Deletes the owner's blocks that the manifest does not name (left by a write whose manifest
   * update was lost, e.g. to a failure before a checkpoint); returns how many.
   */
  public int collectGarbage() throws IOException {
    Set<BlockName> named = new HashSet<>();
    for (BlockInfo block : state.manifest()) {
      named.add(block.name());
    }
    int deleted = 0;
    for (BlockName name : store.list(owner)) {
      if (!named.contains(name)) {
        store.delete(name);
        deleted++;
      }
    }
    return deleted;
  }

  private void requireTimes(String operation) {
    if (timeOf == null) {
      throw new IllegalStateException(
          operation + " needs the time of the elements of " + owner + ", which it was not given");
    }
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

  /** A block's encoded elements, checked against the count its manifest entry holds. */
  private List<byte[]> elementsOf(BlockInfo info) throws IOException {
    byte[] block = store.read(info.name());
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(block));
    int count = in.readInt();
    if (info.elements() != BlockInfo.UNKNOWN_COUNT && count != info.elements()) {
      throw new IOException(
          "block "
              + info.name()
              + " of "
              + owner
              + " holds "
              + count
              + " elements where the manifest says "
              + info.elements());
    }
    List<byte[]> elements = new ArrayList<>(Math.max(0, Math.min(count, 1 << 16)));
    for (int i = 0; i < count; i++) {
      byte[] encoded = new byte[in.readInt()];
      in.readFully(encoded);
      elements.add(encoded);
    }
    return elements;
  }

  /** An element decoded; {@code block} says where it came from (null: the memory bucket). */
  private T decoded(byte[] encoded, BlockInfo block) {
    try {
      return codec.decode(encoded);
    } catch (IOException e) {
      String where = block == null ? "the memory bucket" : "block " + block.name();
      throw new UncheckedIOException(
          where + " of " + owner + " does not decode with " + codec + ": " + e.getMessage(), e);
    }
  }
}
