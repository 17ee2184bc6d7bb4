package dev.eventide.tiering.internal.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.blockstore.BlockName;
import dev.eventide.blockstore.BlockStore;
import dev.eventide.blockstore.BlockStores;
import dev.eventide.testing.waits.Await;
import dev.eventide.tiering.internal.io.IoScheduler.Priority;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TieredIoTest {
  private final IoScheduler scheduler = new IoScheduler(2);

  @AfterEach
  void close() throws InterruptedException {
    scheduler.close();
  }

  /** Counts reads: prestaged ones and those on demand. */
  private static final class Reads implements TieredIo.Listener {
    final AtomicInteger hits = new AtomicInteger();
    final AtomicInteger misses = new AtomicInteger();

    @Override
    public void written(long bytes) {}

    @Override
    public void read(long bytes, boolean prestaged, long waitedMillis) {
      (prestaged ? hits : misses).incrementAndGet();
    }

    @Override
    public void deleted(int blocks) {}
  }

  @Test
  void aPrestagedBlockIsReadFromTheStagingAreaOnce() throws Exception {
    BlockStore store = BlockStores.open("memory:" + UUID.randomUUID());
    TieredIo io = new TieredIo(store, scheduler, new StagingArea(10, Long.MAX_VALUE));
    BlockName a = store.write("w", new byte[] {1});
    BlockName b = store.write("w", new byte[] {2});
    CountDownLatch staged = new CountDownLatch(1);
    AtomicLong nanos = new AtomicLong(-1);
    io.prestage(
        List.of(a, b),
        0,
        n -> {
          nanos.set(n);
          staged.countDown();
        });
    assertTrue(staged.await(10, TimeUnit.SECONDS));
    assertTrue(nanos.get() >= 0, "staging time reported");
    Reads reads = new Reads();
    BlockStore view = io.view(Priority.DESTAGE, reads);
    assertArrayEquals(new byte[] {1}, view.read(a));
    assertArrayEquals(new byte[] {2}, view.read(b));
    assertArrayEquals(new byte[] {1}, view.read(a)); // taken once: now on demand
    assertEquals(2, reads.hits.get());
    assertEquals(1, reads.misses.get());
  }

  @Test
  void aFailedPrestageIsReadAgainOnDemandAndADelayedOneWaits() throws Exception {
    BlockStore store = BlockStores.open("memory:" + UUID.randomUUID());
    StagingArea staging = new StagingArea(10, Long.MAX_VALUE);
    TieredIo io = new TieredIo(store, scheduler, staging);
    BlockName missing = BlockName.of("w", new byte[] {9});
    CountDownLatch done = new CountDownLatch(1);
    io.prestage(List.of(missing), 0, n -> done.countDown());
    assertTrue(done.await(10, TimeUnit.SECONDS));
    assertNull(staging.take(missing), "a failed pre-stage leaves nothing staged");

    // A delayed pre-stage waits for its delay, on a scheduler whose delays this test runs.
    List<Long> delays = new ArrayList<>();
    List<Runnable> delayed = new ArrayList<>();
    IoScheduler.Delayer byHand =
        new IoScheduler.Delayer() {
          @Override
          public synchronized void schedule(Runnable action, long delayMillis) {
            delays.add(delayMillis);
            delayed.add(action);
          }

          @Override
          public void shutdown() {}
        };
    try (IoScheduler handScheduler = new IoScheduler(1, byHand)) {
      TieredIo later = new TieredIo(store, handScheduler, staging);
      BlockName a = store.write("w", new byte[] {1});
      CountDownLatch staged = new CountDownLatch(1);
      later.prestage(List.of(a), 60_000, n -> staged.countDown());
      assertEquals(List.of(60_000L), delays, "the pre-stage waits a minute");
      assertEquals(0, staging.size(), "and has not started");
      delayed.get(0).run();
      assertTrue(staged.await(10, TimeUnit.SECONDS), "staged once its delay is over");
      assertEquals(1, staging.size());
    }
  }

  @Test
  void theStagingAreaIsBoundedAndForgetsWhatNobodyTakes() throws Exception {
    StagingArea full = new StagingArea(1, Long.MAX_VALUE);
    BlockName a = BlockName.of("w", new byte[] {1});
    BlockName b = BlockName.of("w", new byte[] {2});
    assertTrue(full.offer(a, new CompletableFuture<>()));
    assertFalse(full.offer(a, new CompletableFuture<>()), "already staged");
    assertFalse(full.offer(b, new CompletableFuture<>()), "full");

    AtomicLong nanos = new AtomicLong();
    StagingArea ageing = new StagingArea(1, 1_000, nanos::get);
    assertTrue(ageing.offer(a, new CompletableFuture<>()));
    nanos.set(1_000);
    assertFalse(ageing.offer(b, new CompletableFuture<>()), "a is as old as it may be");
    nanos.set(1_001);
    assertTrue(ageing.offer(b, new CompletableFuture<>()), "a aged out");
    assertNull(ageing.take(a));
  }

  /** Polls until the store holds no block of these owners; the I/O runs on scheduler threads. */
  private static void awaitNoBlocks(BlockStore store, String... owners) throws Exception {
    Await.until(
        "the count of blocks of " + String.join(", ", owners) + " in " + store.uri() + " at 0",
        Duration.ofSeconds(60),
        () -> {
          int left = 0;
          for (String owner : owners) {
            left += store.list(owner).size();
          }
          return left;
        },
        left -> left == 0);
  }

  /**
   * A worker that stops before its delayed purge (its scheduler closes with the purge waiting)
   * leaves the purge recorded in the store; the worker that takes over performs it at its deadline,
   * and the record goes with the blocks.
   */
  @Test
  void aPurgeRecordedByAStoppedWorkerIsPerformedByTheNext() throws Exception {
    BlockStore store = BlockStores.open("memory:" + UUID.randomUUID());
    BlockName a = store.write("w", new byte[] {1});
    store.write("w", new byte[] {2}); // a block no manifest names (a lost write)
    BlockName other = store.write("v", new byte[] {3});
    AtomicLong now = new AtomicLong(1_000_000);
    IoScheduler stopping = new IoScheduler(1);
    new TieredIo(store, stopping, new StagingArea(10, Long.MAX_VALUE), now::get)
        .purgeLater("records", "w", List.of(a), 60_000);
    stopping.close();
    assertEquals(1, store.list("records").size(), "the purge is recorded");
    assertEquals(2, store.list("w").size());

    TieredIo next = new TieredIo(store, scheduler, new StagingArea(10, Long.MAX_VALUE), now::get);
    assertEquals(
        1, next.resumePurges("records").scheduled(), "scheduled for its deadline, a minute on");
    assertEquals(0, next.resumePurges("records").scheduled(), "already waiting in this JVM");
    assertEquals(2, store.list("w").size(), "nothing deleted before the deadline");

    now.addAndGet(60_000);
    try (IoScheduler another = new IoScheduler(1)) {
      TieredIo late = new TieredIo(store, another, new StagingArea(1, 1), now::get);
      assertEquals(1, late.resumePurges("records").scheduled(), "past its deadline: at once");
      // the named block, the owner's block no manifest named, and the record
      awaitNoBlocks(store, "w", "records");
    }
    assertEquals(List.of(other), store.list("v"), "other owners' blocks stay");
  }

  /**
   * A record that cannot be read (another format version, as after a rollback, or damaged) is
   * skipped and reported by name; the readable ones are still performed, and the step starts.
   */
  @Test
  void anUnreadablePurgeRecordIsSkippedAndReportedByName() throws Exception {
    BlockStore store = BlockStores.open("memory:" + UUID.randomUUID());
    BlockName other = store.write("records", new byte[] {9, 9});
    BlockName block = store.write("w", new byte[] {1});
    TieredIo writer = new TieredIo(store, scheduler, new StagingArea(10, Long.MAX_VALUE));
    writer.purgeLater("records", "w", List.of(block), 0);
    awaitNoBlocks(store, "w");

    TieredIo.Resumed resumed =
        new TieredIo(store, scheduler, new StagingArea(10, Long.MAX_VALUE)).resumePurges("records");
    assertEquals(0, resumed.scheduled());
    assertEquals(
        List.of(other.path() + ": a purge record of version 9, not 1"), resumed.unreadable());
    assertEquals(List.of(other), store.list("records"), "left in the store, unread");
  }
}
