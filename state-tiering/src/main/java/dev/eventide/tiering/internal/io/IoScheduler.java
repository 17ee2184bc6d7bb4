package dev.eventide.tiering.internal.io;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The I/O of tiered window state, one per JVM (Aion, Section 4): a few I/O threads that take block
 * reads and writes from one queue by priority — pre-staging a window expected to fire late first,
 * then appending late events, then destaging past windows.
 *
 * <p>Several threads because a remote store (Google Cloud Storage) serves requests in parallel, and
 * a request's latency, not its bytes, is what a firing waits for: with one thread, pre-staging a
 * window of many blocks took one round trip per block. The queue keeps the priorities meaningful:
 * an urgent pre-stage waits at most for a thread to finish its operation in progress. Tasks of one
 * priority start in submission order. A failed task fails its future with the task's exception;
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

  /** I/O threads of the JVM's scheduler: requests in flight at once. */
  static final int SHARED_IO_THREADS = 8;

  private static final class Holder {
    static final IoScheduler SHARED = new IoScheduler(SHARED_IO_THREADS);
  }

  private record Queued(Priority priority, long sequence, Runnable work)
      implements Comparable<Queued> {
    @Override
    public int compareTo(Queued other) {
      int c = priority.compareTo(other.priority);
      return c != 0 ? c : Long.compare(sequence, other.sequence);
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(IoScheduler.class);
  static final long FIRST_RETRY_MILLIS = 100;
  static final long LONGEST_RETRY_MILLIS = 60_000;

  private static final Queued STOP = new Queued(Priority.DESTAGE, Long.MAX_VALUE, () -> {});

  private final PriorityBlockingQueue<Queued> queue = new PriorityBlockingQueue<>();
  private final AtomicLong sequence = new AtomicLong();
  private final AtomicInteger pending = new AtomicInteger();
  private final List<Thread> ioThreads = new ArrayList<>();
  private final Delayer delayer;
  private final Set<String> waiting = ConcurrentHashMap.newKeySet();
  private final String id = UUID.randomUUID().toString();
  private final AtomicLong failedRetries = new AtomicLong();
  private boolean closed; // guarded by this

  /**
   * Runs an action after a delay of processing time: on a thread of the scheduler, or, in a test,
   * when the test says. Rejects actions ({@link RejectedExecutionException}) once shut down.
   */
  interface Delayer {
    void schedule(Runnable action, long delayMillis);

    void shutdown();
  }

  /** A delayer with a thread of its own. */
  private static Delayer threadDelayer() {
    ScheduledExecutorService executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "eventide-io-delay");
              t.setDaemon(true);
              return t;
            });
    return new Delayer() {
      @Override
      public void schedule(Runnable action, long delayMillis) {
        executor.schedule(action, delayMillis, TimeUnit.MILLISECONDS);
      }

      @Override
      public void shutdown() {
        executor.shutdownNow();
      }
    };
  }

  IoScheduler(int threads) {
    this(threads, threadDelayer());
  }

  IoScheduler(int threads, Delayer delayer) {
    this.delayer = delayer;
    if (threads < 1) {
      throw new IllegalArgumentException(
          "an I/O scheduler needs at least 1 thread, not " + threads);
    }
    for (int i = 1; i <= threads; i++) {
      Thread thread = new Thread(this::runIo, "eventide-io-" + i);
      thread.setDaemon(true);
      thread.start();
      ioThreads.add(thread);
    }
  }

  /** The scheduler of this JVM, shared by every tiered window. */
  public static IoScheduler shared() {
    return Holder.SHARED;
  }

  /**
   * A name no other scheduler has, in this JVM or any other: who holds the delayed actions
   * scheduled here ({@link #afterDelayOnce}).
   */
  public String id() {
    return id;
  }

  /** Queues an I/O task for the next free I/O thread. */
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
        delayMillis);
  }

  /**
   * Queues {@code action} as {@link Priority#DESTAGE} I/O after a delay, unless an action of the
   * same {@code id} is already waiting or running (then it returns false and does nothing). An
   * action that fails is counted ({@link #takeFailedRetries}) and run again after a backoff that
   * doubles from {@value #FIRST_RETRY_MILLIS} ms up to {@value #LONGEST_RETRY_MILLIS} ms, until it
   * succeeds or the scheduler closes; the id is free again once it has succeeded.
   */
  public boolean afterDelayOnce(String id, long delayMillis, IoTask<?> action) {
    if (!waiting.add(id)) {
      return false;
    }
    attempt(id, delayMillis, action, FIRST_RETRY_MILLIS);
    return true;
  }

  private void attempt(String id, long delayMillis, IoTask<?> action, long retryMillis) {
    try {
      afterDelay(
          delayMillis,
          () -> {
            try {
              io(Priority.DESTAGE, action)
                  .whenComplete(
                      (ignored, failure) -> {
                        if (failure == null) {
                          waiting.remove(id);
                          return;
                        }
                        failedRetries.incrementAndGet();
                        LOG.warn(
                            "Delayed I/O {} failed; trying again in {} ms: {}",
                            id,
                            retryMillis,
                            failure.toString());
                        attempt(
                            id,
                            retryMillis,
                            action,
                            Math.min(LONGEST_RETRY_MILLIS, retryMillis * 2));
                      });
            } catch (RejectedExecutionException e) {
              waiting.remove(id);
              throw e;
            }
          });
    } catch (RejectedExecutionException closed) {
      waiting.remove(id); // the delayer has stopped: nothing more runs here
    }
  }

  /**
   * How many delayed actions failed (each failure is retried) since the last call: for a metric of
   * whichever step reads it; resets the count.
   */
  public long takeFailedRetries() {
    // A read first: this is asked on every element, and failures are rare.
    return failedRetries.get() == 0 ? 0 : failedRetries.getAndSet(0);
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
      ioThreads.forEach(thread -> queue.add(STOP)); // one for each thread, after all work
    }
    for (Thread thread : ioThreads) {
      thread.join();
    }
    delayer.shutdown();
  }
}
