package dev.eventide.blockstore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link BlockStore} must do; each implementation's test extends this (model: Kafka
 * Streams' {@code AbstractKeyValueStoreTest}).
 */
public abstract class BlockStoreContractTest {
  protected BlockStore store;

  /** A fresh, empty store. */
  protected abstract BlockStore newStore() throws Exception;

  /** Flips a byte of the stored block, as a failing disk or a bad upload would. */
  protected abstract void damage(BlockName name) throws Exception;

  /**
   * Everything the store keeps, whatever it keeps it in: files and directories, map entries,
   * objects.
   */
  protected abstract long entriesHeld() throws Exception;

  @BeforeEach
  void open() throws Exception {
    store = newStore();
  }

  @AfterEach
  void close() throws Exception {
    store.close();
  }

  private static byte[] bytes(int size, long seed) {
    byte[] b = new byte[size];
    new Random(seed).nextBytes(b);
    return b;
  }

  @Test
  void readsBackWhatWasWritten() throws Exception {
    byte[] contents = bytes(1000, 1);
    BlockName name = store.write("key-1@window-0", contents);
    assertArrayEquals(contents, store.read(name));
  }

  @Test
  void emptyAndLargeBlocksRoundTrip() throws Exception {
    byte[] large = bytes(3 << 20, 2);
    assertArrayEquals(new byte[0], store.read(store.write("o", new byte[0])));
    assertArrayEquals(large, store.read(store.write("o", large)));
  }

  @Test
  void writingTheSameBlockAgainStoresItOnce() throws Exception {
    byte[] contents = bytes(100, 3);
    BlockName first = store.write("owner", contents);
    BlockName second = store.write("owner", contents.clone());
    assertEquals(first, second);
    assertEquals(List.of(first), store.list("owner"));
  }

  @Test
  void blocksAreNamedByHashWhateverTheOwnerLooksLike() throws Exception {
    BlockName name = store.write("../../etc/passwd", bytes(10, 4));
    assertTrue(name.path().matches("[0-9a-f]{32}/[0-9a-f]{64}\\.blk"), name.path());
    assertEquals(List.of(name), store.list("../../etc/passwd"));
    assertEquals(List.of(), store.list("../../etc"));
  }

  @Test
  void listsTheBlocksOfOneOwnerOnly() throws Exception {
    Set<BlockName> mine = new HashSet<>();
    for (int i = 0; i < 5; i++) {
      mine.add(store.write("mine", bytes(50, 10 + i)));
    }
    store.write("theirs", bytes(50, 10));
    assertEquals(mine, new HashSet<>(store.list("mine")));
    assertEquals(1, store.list("theirs").size());
    assertEquals(List.of(), store.list("nobody"));
  }

  @Test
  void deletedBlocksAreGoneAndDeletingTwiceIsFine() throws Exception {
    BlockName name = store.write("owner", bytes(10, 5));
    store.delete(name);
    store.delete(name);
    assertEquals(List.of(), store.list("owner"));
    NoSuchBlockException e = assertThrows(NoSuchBlockException.class, () -> store.read(name));
    assertTrue(e.getMessage().contains(name.path()), e.getMessage());
  }

  /** Owners come and go for ever (a key per window): one that has gone must cost nothing. */
  @Test
  void aStoreWhoseBlocksWereAllDeletedHoldsNothing() throws Exception {
    List<BlockName> names = new ArrayList<>();
    for (int owner = 0; owner < 50; owner++) {
      for (int block = 0; block < 3; block++) {
        names.add(store.write("key-" + owner + "@window-0", bytes(20, owner * 10L + block)));
      }
    }
    assertTrue(entriesHeld() >= names.size(), "entries held: " + entriesHeld());
    for (BlockName name : names) {
      store.delete(name);
    }
    assertEquals(0, entriesHeld());
  }

  @Test
  void aDamagedBlockIsReportedWithItsName() throws Exception {
    BlockName name = store.write("owner", bytes(200, 6));
    damage(name);
    CorruptBlockException e = assertThrows(CorruptBlockException.class, () -> store.read(name));
    assertTrue(e.getMessage().contains(name.path()), e.getMessage());
    assertTrue(e.getMessage().contains(store.uri()), e.getMessage());
  }

  /**
   * Writes and deletes of one owner's blocks on different threads (a window's purge beside another
   * window's destage; a purge record's write beside another record's delete): a block written and
   * not deleted is there, however the two interleave — also when a delete empties the owner.
   */
  @Test
  void aWriteBesideADeleteOfTheSameOwnersLastBlockIsKept() throws Exception {
    int rounds = 3_000;
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      List<Future<String>> workers = new ArrayList<>();
      for (int w = 0; w < 2; w++) {
        int worker = w;
        workers.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < rounds; i++) {
                    byte[] contents = bytes(16, worker * 1_000_000L + i);
                    BlockName name = store.write("shared owner", contents);
                    try {
                      assertArrayEquals(contents, store.read(name));
                    } catch (NoSuchBlockException lost) {
                      return "worker " + worker + " lost its block of round " + i;
                    }
                    store.delete(name); // often the owner's last block
                  }
                  return "";
                }));
      }
      for (Future<String> worker : workers) {
        assertEquals("", worker.get(2, TimeUnit.MINUTES));
      }
      assertEquals(List.of(), store.list("shared owner"));
      assertEquals(0, entriesHeld());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void concurrentWritersOfManyBlocksLoseNone() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<BlockName>> written = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        int seed = i % 20; // every block written twice, concurrently
        written.add(pool.submit(() -> store.write("shared", bytes(500, seed))));
      }
      Set<BlockName> names = new HashSet<>();
      for (Future<BlockName> f : written) {
        names.add(f.get(1, TimeUnit.MINUTES));
      }
      assertEquals(20, names.size());
      assertEquals(names, new HashSet<>(store.list("shared")));
      for (BlockName name : names) {
        store.read(name);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
