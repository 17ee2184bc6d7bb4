package dev.eventide.tiering.internal.io;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The I/O of tiered window state, one per JVM (Aion, Section 4): a single I/O thread that runs
 * block reads and writes by priority — pre-staging a window expected to fire late first, then
 * appending late events, then destaging past windows — and a pool of threads for encoding and
 * decoding blocks, so that (de)serialization never holds up the disk or the network.
 *
 * <p>One I/O thread keeps the device's access pattern sequential and makes the priorities
 * meaningful: an urgent pre-stage waits for at most the operation in progress. Tasks of one
 * priority run in submission order. A failed task fails its future with the task's exception;
 * nothing is dropped: {@link #close()} runs what was queued before it returns.
 */
public final class IoScheduler implements AutoCloseable {

  /** Why an I/O task runs; earlier constants run first. */
  public enum Priority {
    /** Bring a past window's blocks back before its expected late firing. */
    PRESTAGE,
    /** Append late events to a past window's state. */
    LATE_APPEND,
    /** Move a window that has fired on time out of memory. */
    DESTAGE
  }

  /** A unit of I/O that may fail. */
  @FunctionalInterface
  public interface IoTask<T> {
    T run() throws Exception;
  }

  private static final class Holder {
    static final IoScheduler SHARED =
        new IoScheduler(Math.max(2, Runtime.getRuntime().availableProcessors()));
  }

  private record Queued(Priority priority, long sequence, Runnable work)
      implements Comparable<Queued> {
    @Override
    public int compareTo(Queued other) {
      int c = priority.compareTo(other.priority);
      return c != 0 ? c : Long.compare(sequence, other.sequence);
    }
  }

  private static final Queued STOP = new Queued(Priority.DESTAGE, Long.MAX_VALUE, () -> {});

  private final PriorityBlockingQueue<Queued> queue = new PriorityBlockingQueue<>();
  private final AtomicLong sequence = new AtomicLong();
  private final AtomicInteger pending = new AtomicInteger();
  private final Thread ioThread;
  private final ExecutorService codecPool;
  private final ScheduledExecutorService delayer =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "eventide-io-delay");
            t.setDaemon(true);
            return t;
          });
  private boolean closed; // guarded by this

  IoScheduler(int codecThreads) {
    AtomicInteger codecThreadNumber = new AtomicInteger();
    this.codecPool =
        Executors.newFixedThreadPool(
            codecThreads,
            r -> {
              Thread t = new Thread(r, "eventide-codec-" + codecThreadNumber.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    this.ioThread = new Thread(this::runIo, "eventide-io");
    ioThread.setDaemon(true);
    ioThread.start();
  }

  /** The scheduler of this JVM, shared by every tiered window. */
  public static IoScheduler shared() {
    return Holder.SHARED;
  }

  /** Queues an I/O task on the I/O thread. */
  public <T> CompletableFuture<T> io(Priority priority, IoTask<T> task) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Queued queued =
        new Queued(
            priority,
            sequence.getAndIncrement(),
            () -> {
              try {
                result.complete(task.run());
              } catch (Throwable e) {
                result.completeExceptionally(e);
              } finally {
                pending.decrementAndGet();
              }
            });
    synchronized (this) { // never queue behind STOP: that task would never run
      if (closed) {
        throw new RejectedExecutionException("the I/O scheduler is closed");
      }
      pending.incrementAndGet();
      queue.add(queued);
    }
    return result;
  }

  /**
   * Runs the action (which typically queues I/O) after a delay of processing time; returns at once.
   * An action still waiting when the scheduler closes or the JVM stops does not run; one that
   * queues I/O on a closed scheduler is dropped.
   */
  public void afterDelay(long delayMillis, Runnable action) {
    delayer.schedule(
        () -> {
          try {
            action.run();
          } catch (RejectedExecutionException e) {
            // closed meanwhile: dropped, as documented
          }
        },
        delayMillis,
        TimeUnit.MILLISECONDS);
  }

  /** Runs encoding or decoding work on the codec pool. */
  public <T> CompletableFuture<T> codec(Callable<T> work) {
    CompletableFuture<T> result = new CompletableFuture<>();
    codecPool.execute(
        () -> {
          try {
            result.complete(work.call());
          } catch (Throwable e) {
            result.completeExceptionally(e);
          }
        });
    return result;
  }

  /** I/O tasks queued or running. */
  public int pendingIo() {
    return pending.get();
  }

  private void runIo() {
    while (true) {
      Queued next;
      try {
        next = queue.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      if (next == STOP) {
        return;
      }
      next.work().run();
    }
  }

  /** Runs the queued I/O tasks, then stops the threads; later submissions are rejected. */
  @Override
  public void close() throws InterruptedException {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      queue.add(STOP);
    }
    ioThread.join();
    codecPool.shutdown();
    delayer.shutdownNow();
  }
}
