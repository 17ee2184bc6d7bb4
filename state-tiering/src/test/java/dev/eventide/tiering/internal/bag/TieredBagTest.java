package dev.eventide.tiering.internal.bag;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.blockstore.BlockName;
import dev.eventide.blockstore.BlockStore;
import dev.eventide.blockstore.BlockStores;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.junit.jupiter.api.Test;

class TieredBagTest {
  private final BlockStore store;

  TieredBagTest() throws IOException {
    store = BlockStores.open("memory:" + UUID.randomUUID());
  }

  private TieredBag<Long> bag(BagState state, long elements, long bytes) {
    return new TieredBag<>(
        "key@window", VarLongCoder.of(), state, store, new TieredBag.Limits(elements, bytes));
  }

  private static List<Long> all(TieredBag<Long> bag) {
    List<Long> out = new ArrayList<>();
    bag.read().forEach(out::add);
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
      List<Long> actual = all(bag);
      actual.sort(null);
      expected.sort(null);
      assertEquals(expected, actual, "memory bound " + bound);
      bag.clear();
    }
  }

  @Test
  void theMemoryBucketStaysWithinItsBounds() throws Exception {
    BagState state = BagState.inMemory();
    TieredBag<Long> bag = bag(state, 10, 25);
    for (long i = 0; i < 1000; i++) {
      bag.add(i * 1_000_000L); // 4 encoded bytes each
      assertTrue(state.memorySize()[0] <= 10);
      assertTrue(state.memorySize()[1] <= 25, "bytes " + state.memorySize()[1]);
    }
    assertTrue(bag.blocks().size() >= 1000 / 6);
    assertEquals(1000, all(bag).size());
  }

  @Test
  void readsMemoryFirstThenBlocksOldestFirst() throws Exception {
    TieredBag<Long> bag = bag(BagState.inMemory(), 2, Long.MAX_VALUE);
    for (long i = 1; i <= 5; i++) {
      bag.add(i);
    }
    // blocks [1, 2], [3, 4]; memory [5]
    assertEquals(List.of(5L, 1L, 2L, 3L, 4L), all(bag));
  }

  @Test
  void blocksAreReadOnlyWhenIterationReachesThem() throws Exception {
    TieredBag<Long> bag = bag(BagState.inMemory(), 1, Long.MAX_VALUE);
    bag.add(1L);
    bag.add(2L);
    bag.add(3L);
    store.delete(bag.blocks().get(1)); // [2] is gone
    var it = bag.read().iterator();
    assertEquals(3L, it.next());
    assertEquals(1L, it.next());
    UncheckedIOException e = assertThrows(UncheckedIOException.class, it::next);
    assertTrue(e.getMessage().contains(bag.blocks().get(1).path()), e.getMessage());
  }

  @Test
  void aBlockIsDurableBeforeTheManifestNamesItAndOrphansAreCollected() throws Exception {
    BagState state = BagState.inMemory();
    TieredBag<Long> bag = bag(state, 1, Long.MAX_VALUE);
    bag.add(1L);
    bag.add(2L);
    for (BlockName name : bag.blocks()) {
      store.read(name); // named means stored
    }
    // A write whose manifest update was lost (a failure before the checkpoint):
    store.write("key@window", new byte[] {0, 0, 0, 0});
    assertEquals(1, bag.collectGarbage());
    assertEquals(bag.blocks().size(), store.list("key@window").size());
    assertEquals(List.of(2L, 1L), all(bag));
  }

  @Test
  void clearDeletesBlocksManifestAndMemory() throws Exception {
    TieredBag<Long> bag = bag(BagState.inMemory(), 1, Long.MAX_VALUE);
    for (long i = 0; i < 5; i++) {
      bag.add(i);
    }
    bag.clear();
    assertEquals(List.of(), all(bag));
    assertEquals(List.of(), store.list("key@window"));
  }

  @Test
  void anElementLargerThanTheByteBoundGetsABlockOfItsOwn() throws Exception {
    TieredBag<String> bag =
        new TieredBag<>(
            "k", StringUtf8Coder.of(), BagState.inMemory(), store, new TieredBag.Limits(100, 10));
    bag.add("small");
    bag.add("x".repeat(1000));
    List<String> out = new ArrayList<>();
    bag.read().forEach(out::add);
    assertEquals(List.of("small", "x".repeat(1000)), out);
  }

  @Test
  void rejectsNegativeBounds() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new TieredBag.Limits(-1, 10));
    assertEquals(
        "memory bucket bounds must be >= 0, but were -1 elements, 10 bytes", e.getMessage());
  }
}
