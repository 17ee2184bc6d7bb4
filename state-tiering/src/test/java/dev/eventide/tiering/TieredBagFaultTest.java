package dev.eventide.tiering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import dev.eventide.blockstore.BlockStore;
import dev.eventide.blockstore.BlockStores;
import dev.eventide.blockstore.LocalFileBlockStore;
import dev.eventide.blockstore.internal.bag.BagState;
import dev.eventide.blockstore.internal.bag.TieredBag;
import dev.eventide.testing.differential.Seeds;
import dev.eventide.tiering.teststore.FaultyBlockStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileSystem;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.junit.jupiter.api.Test;

/**
 * A window's tiered bag, its values in their Beam coder's form (as {@code TieredWindow} keeps
 * them), over a store that fails or delays operations never makes a bag lose an element silently:
 * every add either succeeds, and the element is read back, or throws, and the bag still holds every
 * element added before; reads either return everything or throw.
 */
class TieredBagFaultTest {
  private static final CoderCodec<Long> LONGS = new CoderCodec<>(VarLongCoder.of());

  @Test
  void failingOperationsNeverLoseAnAcceptedElement() throws Exception {
    for (long seed : Seeds.range(0, 50).toArray()) {
      BlockStore healthy = BlockStores.open("memory:" + UUID.randomUUID());
      FaultyBlockStore faulty = new FaultyBlockStore(healthy, seed, 0.2, 0);
      BagState state = BagState.inMemory();
      TieredBag<Long> bag =
          new TieredBag<>("k", LONGS, state, faulty, new TieredBag.Limits(3, 1000));
      Random random = new Random(seed);
      List<Long> accepted = new ArrayList<>();
      int rejected = 0;
      for (int i = 0; i < 100; i++) {
        long v = random.nextLong();
        try {
          bag.add(v);
          accepted.add(v);
        } catch (IOException e) {
          rejected++;
          assertTrue(e.getMessage().startsWith("injected"), e.getMessage());
        }
      }
      assertTrue(faulty.failures.get() > 0 && rejected > 0, "seed " + seed + " injected faults");
      Collections.sort(accepted);
      // A read through the faulty store returns everything or fails loudly, naming the block;
      List<Long> read = new ArrayList<>();
      try {
        bag.read().forEach(read::add);
        Collections.sort(read);
        assertEquals(accepted, read, "seed " + seed);
      } catch (UncheckedIOException e) {
        assertTrue(e.getMessage().startsWith("injected read failure of "), e.getMessage());
      }
      // and through a healthy one, everything accepted is there.
      read.clear();
      new TieredBag<>("k", LONGS, state, healthy, new TieredBag.Limits(3, 1000))
          .read()
          .forEach(read::add);
      Collections.sort(read);
      assertEquals(accepted, read, "seed " + seed);
      // Blocks whose write failed after storing them are orphans, collected from the healthy store.
      new TieredBag<>("k", LONGS, state, healthy, new TieredBag.Limits(3, 1000)).collectGarbage();
      assertEquals(state.manifest().size(), healthy.list("k").size());
    }
  }

  @Test
  void delaysChangeNothing() throws Exception {
    FaultyBlockStore slow =
        new FaultyBlockStore(BlockStores.open("memory:" + UUID.randomUUID()), 1, 0, 3);
    TieredBag<Long> bag =
        new TieredBag<>("k", LONGS, BagState.inMemory(), slow, new TieredBag.Limits(2, 1000));
    for (long i = 0; i < 20; i++) {
      bag.add(i);
    }
    List<Long> out = new ArrayList<>();
    bag.read().forEach(out::add);
    Collections.sort(out);
    assertEquals(20, out.size());
    assertEquals(0L, out.get(0));
    assertEquals(19L, out.get(19));
  }

  @Test
  void aFullDiskIsAClearErrorAndTheBagKeepsWhatItHad() throws Exception {
    try (FileSystem disk =
        Jimfs.newFileSystem(
            Configuration.unix().toBuilder().setMaxSize(64 * 1024).setBlockSize(1024).build())) {
      BlockStore store = new LocalFileBlockStore(disk.getPath("/blocks"));
      BagState state = BagState.inMemory();
      TieredBag<byte[]> bag =
          new TieredBag<>(
              "k",
              new CoderCodec<>(org.apache.beam.sdk.coders.ByteArrayCoder.of()),
              state,
              store,
              new TieredBag.Limits(1, 1 << 20));
      int added = 0;
      IOException full = null;
      Random random = new Random(1);
      while (full == null && added < 1000) {
        byte[] element = new byte[4096];
        random.nextBytes(element); // distinct: equal blocks would be stored once
        try {
          bag.add(element);
          added++;
        } catch (IOException e) {
          full = e;
        }
      }
      IOException e = full;
      assertTrue(e != null, "the 64 KiB disk filled up");
      assertTrue(e.getMessage().startsWith("could not write block "), e.getMessage());
      assertTrue(e.getMessage().contains(store.uri()), e.getMessage());
      assertTrue(e.getMessage().contains("the disk is full"), e.getMessage());
      int count = 0;
      for (byte[] ignored : bag.read()) {
        count++;
      }
      assertEquals(added, count, "every element accepted before the disk filled is still there");
      byte[] more = new byte[4096];
      random.nextBytes(more);
      assertThrows(IOException.class, () -> bag.add(more));
    }
  }
}
