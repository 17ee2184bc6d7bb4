package dev.eventide.blockstore.internal.bag;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.blockstore.BlockName;
import dev.eventide.blockstore.BlockStore;
import dev.eventide.blockstore.BlockStores;
import dev.eventide.blockstore.ForwardingBlockStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TieredBagTest {
  /** A long in 8 bytes; its time is its value. */
  static final ElementCodec<Long> LONGS =
      new ElementCodec<>() {
        @Override
        public byte[] encode(Long element) {
          return ByteBuffer.allocate(Long.BYTES).putLong(element).array();
        }

        @Override
        public Long decode(byte[] encoded) throws IOException {
          if (encoded.length != Long.BYTES) {
            throw new IOException(encoded.length + " bytes, expected " + Long.BYTES);
          }
          return ByteBuffer.wrap(encoded).getLong();
        }

        @Override
        public String toString() {
          return "8-byte longs";
        }
      };

  private static final ElementCodec<String> STRINGS =
      new ElementCodec<>() {
        @Override
        public byte[] encode(String element) {
          return element.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] encoded) {
          return new String(encoded, StandardCharsets.UTF_8);
        }
      };

  /** Counts the blocks read, to see which a read fetched. */
  private static final class CountingStore extends ForwardingBlockStore {
    final AtomicInteger reads = new AtomicInteger();

    CountingStore(BlockStore delegate) {
      super(delegate);
    }

    @Override
    public byte[] read(BlockName name) throws IOException {
      reads.incrementAndGet();
      return super.read(name);
    }
  }

  private final CountingStore store;

  TieredBagTest() throws IOException {
    store = new CountingStore(BlockStores.open("memory:" + UUID.randomUUID()));
  }

  private TieredBag<Long> bag(BagState state, long elements, long bytes) {
    return new TieredBag<>(
        "key@window", LONGS, state, store, new TieredBag.Limits(elements, bytes));
  }

  private TieredBag<Long> timedBag(BagState state, long elements) {
    return new TieredBag<>(
        "key", LONGS, t -> t, state, store, new TieredBag.Limits(elements, Long.MAX_VALUE));
  }

  private static <T> List<T> all(Iterable<T> elements) {
    List<T> out = new ArrayList<>();
    elements.forEach(out::add);
    return out;
  }

  @Test
  void keepsEveryElementWhateverTheMemoryBound() throws Exception {
    Random random = new Random(1);
    for (long bound : new long[] {0, 1, 2, 7, 100, 10_000}) {
      TieredBag<Long> bag = bag(BagState.inMemory(), bound, Long.MAX_VALUE);
      List<Long> expected = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        long v = random.nextLong();
        bag.add(v);
        expected.add(v);
      }
      List<Long> actual = all(bag.read());
      actual.sort(null);
      expected.sort(null);
      assertEquals(expected, actual, "memory bound " + bound);
      bag.clear();
    }
  }

  /** A string or null: a marker byte, then the string's UTF-8 bytes. */
  private static final ElementCodec<String> NULLABLE_STRINGS =
      new ElementCodec<>() {
        @Override
        public byte[] encode(String element) {
          if (element == null) {
            return new byte[] {0};
          }
          byte[] utf8 = element.getBytes(StandardCharsets.UTF_8);
          return ByteBuffer.allocate(1 + utf8.length).put((byte) 1).put(utf8).array();
        }

        @Override
        public String decode(byte[] encoded) {
          return encoded[0] == 0
              ? null
              : new String(encoded, 1, encoded.length - 1, StandardCharsets.UTF_8);
        }
      };

  /**
   * Null elements come back, from the memory bucket and from blocks, in their places; {@code
   * hasNext} may be asked any number of times.
   */
  @Test
  void nullElementsAreElementsInMemoryAndInBlocks() throws Exception {
    List<String> added = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      added.add(i % 3 == 1 ? null : "v" + i);
    }
    added.add(0, null); // the first element of the first block
    added.add(null); // the last element, in the memory bucket
    for (long bound : new long[] {0, 1, 4, 10_000}) {
      TieredBag<String> bag =
          new TieredBag<>(
              "key@window",
              NULLABLE_STRINGS,
              BagState.inMemory(),
              store,
              new TieredBag.Limits(bound, Long.MAX_VALUE));
      for (String element : added) {
        bag.add(element);
      }
      List<String> read = new ArrayList<>();
      var elements = bag.read().iterator();
      while (elements.hasNext() && elements.hasNext()) {
        read.add(elements.next());
      }
      assertEquals(multiset(added), multiset(read), "memory bound " + bound);
      assertEquals(added.size(), read.size(), "memory bound " + bound);
      bag.clear();
    }
  }

  private static Map<String, Long> multiset(List<String> elements) {
    Map<String, Long> counts = new HashMap<>();
    for (String element : elements) {
      counts.merge(String.valueOf(element), 1L, Long::sum);
    }
    return counts;
  }

  @Test
  void theMemoryBucketStaysWithinItsBounds() throws Exception {
    BagState state = BagState.inMemory();
    TieredBag<Long> bag = bag(state, 10, 25);
    for (long i = 0; i < 1000; i++) {
      bag.add(i); // 8 encoded bytes each: at most 3 in memory
      assertTrue(state.memorySize()[0] <= 3, "elements " + state.memorySize()[0]);
      assertTrue(state.memorySize()[1] <= 25, "bytes " + state.memorySize()[1]);
    }
    assertEquals(333, bag.blocks().size());
    assertEquals(1000, all(bag.read()).size());
  }

  @Test
  void readsMemoryFirstThenBlocksOldestFirst() throws Exception {
    TieredBag<Long> bag = bag(BagState.inMemory(), 2, Long.MAX_VALUE);
    for (long i = 1; i <= 5; i++) {
      bag.add(i);
    }
    // blocks [1, 2], [3, 4]; memory [5]
    assertEquals(List.of(5L, 1L, 2L, 3L, 4L), all(bag.read()));
  }

  @Test
  void blocksAreReadOnlyWhenIterationReachesThem() throws Exception {
    TieredBag<Long> bag = bag(BagState.inMemory(), 1, Long.MAX_VALUE);
    bag.add(1L);
    bag.add(2L);
    bag.add(3L);
    store.delete(bag.blocks().get(1).name()); // [2] is gone
    var it = bag.read().iterator();
    assertEquals(3L, it.next());
    assertEquals(1L, it.next());
    UncheckedIOException e = assertThrows(UncheckedIOException.class, it::next);
    assertTrue(e.getMessage().contains(bag.blocks().get(1).name().path()), e.getMessage());
  }

  @Test
  void aBlockIsDurableBeforeTheManifestNamesItAndOrphansAreCollected() throws Exception {
    TieredBag<Long> bag = bag(BagState.inMemory(), 1, Long.MAX_VALUE);
    bag.add(1L);
    bag.add(2L);
    for (BlockInfo block : bag.blocks()) {
      store.read(block.name()); // named means stored
    }
    // A write whose manifest update was lost (a failure before the checkpoint):
    store.write("key@window", new byte[] {0, 0, 0, 0});
    assertEquals(1, bag.collectGarbage());
    assertEquals(bag.blocks().size(), store.list("key@window").size());
    assertEquals(List.of(2L, 1L), all(bag.read()));
  }

  @Test
  void clearDeletesBlocksManifestAndMemory() throws Exception {
    TieredBag<Long> bag = bag(BagState.inMemory(), 1, Long.MAX_VALUE);
    for (long i = 0; i < 5; i++) {
      bag.add(i);
    }
    bag.clear();
    assertEquals(List.of(), all(bag.read()));
    assertEquals(List.of(), store.list("key@window"));
  }

  @Test
  void anElementLargerThanTheByteBoundGetsABlockOfItsOwn() throws Exception {
    TieredBag<String> bag =
        new TieredBag<>("k", STRINGS, BagState.inMemory(), store, new TieredBag.Limits(100, 10));
    bag.add("small");
    bag.add("x".repeat(1000));
    assertEquals(List.of("small", "x".repeat(1000)), all(bag.read()));
  }

  @Test
  void aBatchGoesToOneBlockOnceTheBucketExceedsItsBound() throws Exception {
    BagState state = BagState.inMemory();
    TieredBag<Long> bag = timedBag(state, 3);
    bag.addAll(List.of(5L, 1L));
    bag.addAll(List.of());
    assertEquals(List.of(), bag.blocks());
    assertEquals(2, state.memorySize()[0]);
    bag.addAll(List.of(9L, 7L, 8L)); // 5 in the bucket: over 3, one block of all five
    assertEquals(1, bag.blocks().size());
    assertEquals(List.of(1L, 9L, 5L), range(bag.blocks().get(0)));
    assertEquals(0, state.memorySize()[0]);
    assertEquals(0, bag.memoryBytes());
    TieredBag<Long> spillsAll = timedBag(BagState.inMemory(), 0);
    spillsAll.addAll(List.of(1L, 2L, 3L));
    assertEquals(1, spillsAll.blocks().size(), "a bound of 0: each batch one block");
    assertEquals(List.of(1L, 2L, 3L), all(spillsAll.read()));
  }

  @Test
  void destageKeepsTheFirstElementsInMemory() throws Exception {
    BagState state = BagState.inMemory();
    TieredBag<Long> bag = bag(state, 10, Long.MAX_VALUE);
    for (long i = 1; i <= 5; i++) {
      bag.add(i);
    }
    bag.destage(2);
    assertEquals(List.of(1L, 2L), all(bag.memory()));
    assertEquals(2, state.memorySize()[0]);
    assertEquals(16, bag.memoryBytes());
    assertEquals(List.of(1L, 2L, 3L, 4L, 5L), all(bag.read()));
    bag.destage(2); // nothing beyond the two kept
    assertEquals(1, bag.blocks().size());
  }

  @Test
  void aBlockWithoutTimesMayHoldAnyTime() throws Exception {
    TieredBag<Long> bag = bag(BagState.inMemory(), 1, Long.MAX_VALUE);
    bag.add(5L);
    bag.add(6L);
    BlockInfo block = bag.blocks().get(0);
    assertEquals(BlockInfo.untimed(block.name()), block);
    assertTrue(block.reaches(Long.MAX_VALUE));
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> bag.readFrom(0));
    assertEquals(
        "readFrom needs the time of the elements of key@window, which it was not given",
        e.getMessage());
    assertEquals(0, bag.deleteBlocks(maxTime -> maxTime < Long.MAX_VALUE));
    assertEquals(1, bag.deleteBlocks(maxTime -> true));
    assertEquals(List.of(6L), all(bag.read()));
  }

  @Test
  void timedBlocksCarryTheirRangeAndCount() throws Exception {
    TieredBag<Long> bag = timedBag(BagState.inMemory(), 3);
    for (long t : new long[] {30, 10, 20, 60, 40, 50, 70}) {
      bag.add(t);
    }
    // blocks {30, 10, 20} and {60, 40, 50}; memory {70}
    List<BlockInfo> blocks = bag.blocks();
    assertEquals(2, blocks.size());
    assertEquals(List.of(10L, 30L, 3L), range(blocks.get(0)));
    assertEquals(List.of(40L, 60L, 3L), range(blocks.get(1)));
  }

  private static List<Long> range(BlockInfo block) {
    return List.of(block.minTime(), block.maxTime(), block.elements());
  }

  @Test
  void readFromFetchesOnlyTheBlocksThatReachTheTime() throws Exception {
    TieredBag<Long> bag = timedBag(BagState.inMemory(), 3);
    for (long t = 0; t < 10; t++) {
      bag.add(t); // blocks [0..2], [3..5], [6..8]; memory [9]
    }
    store.reads.set(0);
    assertEquals(List.of(9L, 4L, 5L, 6L, 7L, 8L), all(bag.readFrom(4)));
    assertEquals(2, store.reads.get(), "the first block ends before 4");
    store.reads.set(0);
    assertEquals(List.of(), all(bag.readFrom(10)));
    assertEquals(0, store.reads.get());
    assertEquals(10, all(bag.readFrom(Long.MIN_VALUE + 1)).size());
  }

  @Test
  void expiredBlocksGoWholeWithTheOwnersOrphans() throws Exception {
    BagState state = BagState.inMemory();
    TieredBag<Long> bag = timedBag(state, 3);
    for (long t = 0; t < 10; t++) {
      bag.add(t);
    }
    store.write("key", new byte[] {0, 0, 0, 0}); // an orphan of a lost manifest update
    assertEquals(0, bag.deleteBlocks(maxTime -> maxTime < 2), "no block ends before 2");
    assertEquals(2 + 1, bag.deleteBlocks(maxTime -> maxTime < 6));
    assertEquals(List.of(6L, 8L, 3L), range(bag.blocks().get(0)));
    assertEquals(bag.blocks().size(), store.list("key").size());
    assertEquals(List.of(9L, 6L, 7L, 8L), all(bag.read()));
    assertEquals(1, bag.deleteBlocks(maxTime -> true));
    assertEquals(List.of(), state.manifest());
    assertEquals(List.of(), store.list("key"));
  }

  @Test
  void retainInMemoryRewritesTheBucketOnlyWhenSomethingGoes() throws Exception {
    BagState state = BagState.inMemory();
    TieredBag<Long> bag = timedBag(state, 10);
    for (long t = 1; t <= 4; t++) {
      bag.add(t);
    }
    List<Long> seen = new ArrayList<>();
    assertEquals(
        0,
        bag.retainInMemory(
            t -> {
              seen.add(t);
              return true;
            }));
    assertEquals(List.of(1L, 2L, 3L, 4L), seen);
    assertEquals(2, bag.retainInMemory(t -> t % 2 == 0));
    assertEquals(List.of(2L, 4L), all(bag.memory()));
    assertEquals(2, state.memorySize()[0]);
    assertEquals(16, state.memorySize()[1]);
    // Judged by the encoding alone: here the element's own 8 bytes.
    assertEquals(0, bag.retainEncodedInMemory(encoded -> encoded.length == Long.BYTES));
    assertEquals(1, bag.retainEncodedInMemory(encoded -> ByteBuffer.wrap(encoded).getLong() > 2));
    assertEquals(List.of(4L), all(bag.memory()));
    assertEquals(8, state.memorySize()[1]);
  }

  @Test
  void aBlockThatDisagreesWithItsManifestEntryIsReportedWithItsName() throws Exception {
    BagState state = BagState.inMemory();
    TieredBag<Long> bag = timedBag(state, 2);
    bag.add(1L);
    bag.add(2L);
    bag.add(3L);
    BlockInfo block = state.manifest().get(0);
    state.replaceManifest(List.of(new BlockInfo(block.name(), 1, 2, 5)));
    UncheckedIOException e = assertThrows(UncheckedIOException.class, () -> all(bag.read()));
    assertEquals(
        "block " + block.name() + " of key holds 2 elements where the manifest says 5",
        e.getMessage());
  }

  @Test
  void anElementThatDoesNotDecodeNamesWhereItIs() throws Exception {
    BagState state = BagState.inMemory();
    state.addToMemory(new byte[] {1, 2, 3});
    UncheckedIOException e =
        assertThrows(UncheckedIOException.class, () -> all(bag(state, 10, 100).read()));
    assertEquals(
        "the memory bucket of key@window does not decode with 8-byte longs: 3 bytes, expected 8",
        e.getMessage());
  }

  @Test
  void rejectsNegativeBoundsAndEmptyRanges() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new TieredBag.Limits(-1, 10));
    assertEquals(
        "memory bucket bounds must be >= 0, but were -1 elements, 10 bytes", e.getMessage());
    BlockName name = BlockName.of("k", new byte[0]);
    assertThrows(IllegalArgumentException.class, () -> new BlockInfo(name, 2, 1, 0));
    assertThrows(IllegalArgumentException.class, () -> new BlockInfo(name, 1, 2, -2));
    assertThrows(IllegalArgumentException.class, () -> new BlockInfo(null, 1, 2, 0));
  }
}
