package dev.eventide.tiering.internal.io;

import dev.eventide.blockstore.BlockName;
import dev.eventide.blockstore.BlockStore;
import dev.eventide.blockstore.ForwardingBlockStore;
import dev.eventide.blockstore.NoSuchBlockException;
import dev.eventide.tiering.internal.io.IoScheduler.IoTask;
import dev.eventide.tiering.internal.io.IoScheduler.Priority;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * The block I/O of one tiered window operator: every store call runs on the JVM's {@link
 * IoScheduler} at its priority, and blocks pre-staged for an expected late firing wait in the
 * {@link StagingArea} until the firing takes them.
 *
 * <p>A caller asks for a {@link #view} of the store at the priority of what it is doing (appending
 * a late event, destaging a window); the view's writes run at that priority and wait for the block
 * to be durable, and its reads take a pre-staged block if there is one, or else read at the highest
 * priority, since a firing is waiting. Everything it does is reported to a {@link Listener} on the
 * caller's thread, where Beam metrics can be updated.
 */
public final class TieredIo {

  /** What the I/O of a view did, reported on the calling thread. */
  public interface Listener {
    void written(long bytes);

    /**
     * A block was read for a firing: taken from the staging area, or read on demand; the firing
     * waited this long for it.
     */
    void read(long bytes, boolean prestaged, long waitedMillis);

    void deleted(int blocks);

    Listener NONE =
        new Listener() {
          @Override
          public void written(long bytes) {}

          @Override
          public void read(long bytes, boolean prestaged, long waitedMillis) {}

          @Override
          public void deleted(int blocks) {}
        };
  }

  private final BlockStore store;
  private final IoScheduler scheduler;
  private final StagingArea staging;
  private final LongSupplier clock;

  public TieredIo(BlockStore store, IoScheduler scheduler, StagingArea staging) {
    this(store, scheduler, staging, System::currentTimeMillis);
  }

  /** With {@code clock} as the wall clock (milliseconds) that purge deadlines are set by. */
  public TieredIo(
      BlockStore store, IoScheduler scheduler, StagingArea staging, LongSupplier clock) {
    this.store = store;
    this.scheduler = scheduler;
    this.staging = staging;
    this.clock = clock;
  }

  public BlockStore store() {
    return store;
  }

  /**
   * Starts reading the blocks into the staging area at {@link Priority#PRESTAGE} after {@code
   * delayMillis} (0: now), skipping those already staged or that would overflow it; reports how
   * long staging took, from the start to the last block read, to {@code staged} (on the I/O
   * thread).
   */
  public void prestage(List<BlockName> blocks, long delayMillis, LongConsumer staged) {
    if (delayMillis > 0) {
      scheduler.afterDelay(delayMillis, () -> prestage(blocks, 0, staged));
      return;
    }
    long start = System.nanoTime();
    List<CompletableFuture<byte[]>> reads = new ArrayList<>();
    for (BlockName name : blocks) {
      CompletableFuture<byte[]> slot = new CompletableFuture<>();
      if (staging.offer(name, slot)) {
        scheduler
            .io(Priority.PRESTAGE, () -> store.read(name))
            .whenComplete(
                (bytes, failure) -> {
                  if (failure != null) {
                    staging.take(name); // a firing reads it on demand and reports the error
                    slot.completeExceptionally(failure);
                  } else {
                    slot.complete(bytes);
                  }
                });
        reads.add(slot);
      }
    }
    if (!reads.isEmpty()) {
      CompletableFuture.allOf(reads.toArray(new CompletableFuture<?>[0]))
          .whenComplete((ignored, failure) -> staged.accept(System.nanoTime() - start));
    }
  }

  /**
   * Deletes the blocks, and any other block of their owner, after a delay: a runner that restores a
   * checkpoint taken before the purge finds the blocks its restored state names. The purge is first
   * recorded in the store, as a block of {@code records} (one owner per operator), so that if this
   * JVM stops before the delay is over, the worker that takes over performs it ({@link
   * #resumePurges}); the record goes with the blocks.
   *
   * @throws IOException if the record cannot be written
   */
  public void purgeLater(String records, String owner, List<BlockName> blocks, long delayMillis)
      throws IOException {
    long now = clock.getAsLong();
    long deadline = delayMillis > Long.MAX_VALUE - now ? Long.MAX_VALUE : now + delayMillis;
    PurgeRecord record = new PurgeRecord(deadline, owner, List.copyOf(blocks));
    byte[] bytes = record.encode();
    BlockName name = await(Priority.DESTAGE, () -> store.write(records, bytes));
    schedule(name, record);
  }

  /**
   * What {@link #resumePurges} did: how many recorded purges it scheduled, and the records it could
   * not read ("name: reason" each) that no one in this JVM had reported yet; it skipped them and
   * left them in the store.
   */
  public record Resumed(int scheduled, List<String> unreadable) {}

  // Unreadable records already reported in this JVM (store URI and record), so that every step
  // instance starting on the same worker does not report them again.
  private static final Set<String> REPORTED_UNREADABLE = ConcurrentHashMap.newKeySet();

  /**
   * Schedules, each at its deadline (at once if it has passed), the purges recorded under {@code
   * records} that this JVM is not already waiting for: those of a worker that stopped before
   * performing them. A record it cannot read (damaged, or written by another format version) is
   * skipped and reported, never fatal: it would otherwise stop the step from starting at all.
   *
   * @throws IOException if the records cannot be listed
   */
  public Resumed resumePurges(String records) throws IOException {
    int scheduled = 0;
    List<String> unreadable = new ArrayList<>();
    for (BlockName name : store.list(records)) {
      PurgeRecord record;
      try {
        record = PurgeRecord.decode(store.read(name));
      } catch (NoSuchBlockException e) {
        continue; // performed meanwhile
      } catch (IOException e) {
        if (REPORTED_UNREADABLE.add(store.uri() + " " + name.path())) {
          unreadable.add(name.path() + ": " + e.getMessage());
        }
        continue;
      }
      scheduled += schedule(name, record) ? 1 : 0;
    }
    return new Resumed(scheduled, List.copyOf(unreadable));
  }

  private boolean schedule(BlockName name, PurgeRecord record) {
    long delay = Math.max(0, record.deadlineMillis() - clock.getAsLong());
    return scheduler.afterDelayOnce(
        store.uri() + " " + name.path(),
        delay,
        () -> {
          delete(record.owner(), record.blocks());
          store.delete(name);
          return null;
        });
  }

  /**
   * Deletes the blocks, and any other block of their owner, now (at {@link Priority#DESTAGE}),
   * returning when they are gone.
   *
   * @throws IOException if a block cannot be deleted or the owner's blocks cannot be listed
   */
  public void purgeNow(String owner, List<BlockName> blocks) throws IOException {
    await(
        Priority.DESTAGE,
        () -> {
          delete(owner, blocks);
          return null;
        });
  }

  private void delete(String owner, List<BlockName> blocks) throws IOException {
    for (BlockName block : blocks) {
      staging.take(block);
      store.delete(block);
    }
    for (BlockName block : store.list(owner)) {
      store.delete(block);
    }
  }

  /** The store as seen by work of this priority, reporting to the listener. */
  public BlockStore view(Priority writes, Listener listener) {
    return new ForwardingBlockStore(store) {
      @Override
      public BlockName write(String owner, byte[] contents) throws IOException {
        BlockName name = await(writes, () -> store.write(owner, contents));
        listener.written(contents.length);
        return name;
      }

      @Override
      public byte[] read(BlockName name) throws IOException {
        long start = System.nanoTime();
        CompletableFuture<byte[]> staged = staging.take(name);
        byte[] contents = null;
        if (staged != null) {
          try {
            contents = await(staged);
          } catch (IOException e) {
            // A failed pre-stage is retried below; only a failed read on demand fails the firing.
          }
        }
        boolean prestaged = contents != null;
        if (!prestaged) {
          contents = await(Priority.PRESTAGE, () -> store.read(name));
        }
        listener.read(contents.length, prestaged, (System.nanoTime() - start) / 1_000_000);
        return contents;
      }

      @Override
      public void delete(BlockName name) throws IOException {
        staging.take(name);
        await(
            writes,
            () -> {
              store.delete(name);
              return null;
            });
        listener.deleted(1);
      }

      @Override
      public List<BlockName> list(String owner) throws IOException {
        return await(writes, () -> store.list(owner));
      }

      @Override
      public void close() {
        // A view: the store is TieredIo's, closed with it.
      }
    };
  }

  private <T> T await(Priority priority, IoTask<T> task) throws IOException {
    return await(scheduler.io(priority, task));
  }

  private static <T> T await(CompletableFuture<T> future) throws IOException {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for block I/O");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof UncheckedIOException io) {
        throw io.getCause();
      }
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IOException(cause.getMessage(), cause);
    }
  }
}
