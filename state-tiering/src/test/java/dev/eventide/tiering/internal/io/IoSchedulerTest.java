package dev.eventide.tiering.internal.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.testing.waits.Await;
import dev.eventide.tiering.internal.io.IoScheduler.Priority;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class IoSchedulerTest {
  // One thread, so that the order in which tasks start is the order in which they run.
  private final IoScheduler scheduler = new IoScheduler(1);

  @AfterEach
  void close() throws Exception {
    scheduler.close();
  }

  @Test
  void runsPrestagesBeforeLateAppendsBeforeDestagesInSubmissionOrderWithinEach() throws Exception {
    CountDownLatch busy = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    scheduler.io(
        Priority.DESTAGE,
        () -> {
          busy.countDown();
          return release.await(10, TimeUnit.SECONDS);
        });
    assertTrue(busy.await(1, TimeUnit.MINUTES), "the destage did not start within a minute");
    List<String> order = Collections.synchronizedList(new ArrayList<>());
    List<CompletableFuture<?>> all = new ArrayList<>();
    String[] submitted = {"D1", "L1", "P1", "D2", "P2", "L2"};
    for (String name : submitted) {
      Priority p =
          switch (name.charAt(0)) {
            case 'P' -> Priority.PRESTAGE;
            case 'L' -> Priority.LATE_APPEND;
            default -> Priority.DESTAGE;
          };
      all.add(scheduler.io(p, () -> order.add(name)));
    }
    assertEquals(7, scheduler.pendingIo());
    release.countDown();
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
    assertEquals(List.of("P1", "P2", "L1", "L2", "D1", "D2"), order);
  }

  @Test
  void aFailedTaskFailsItsFutureWithTheCause() {
    CompletableFuture<Object> f =
        scheduler.io(
            Priority.DESTAGE,
            () -> {
              throw new IOException("disk full");
            });
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
    assertEquals("disk full", e.getCause().getMessage());
  }

  /**
   * A delayed action that fails (a purge whose store is briefly unreachable) runs again, with a
   * growing backoff, until it succeeds; each failure is counted once, and the id stays taken until
   * then, so a second request for it does not run it twice.
   */
  @Test
  void aFailedDelayedActionIsRetriedUntilItSucceedsAndCounted() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    CountDownLatch succeeded = new CountDownLatch(1);
    assertTrue(
        scheduler.afterDelayOnce(
            "purge",
            0,
            () -> {
              if (attempts.incrementAndGet() <= 3) {
                throw new IOException("store unreachable");
              }
              succeeded.countDown();
              return null;
            }));
    assertFalse(scheduler.afterDelayOnce("purge", 0, () -> null), "already waiting");
    // 100 + 200 + 400 ms of backoff
    assertTrue(succeeded.await(1, TimeUnit.MINUTES), "attempts so far: " + attempts.get());
    assertEquals(4, attempts.get());
    assertEquals(3, scheduler.takeFailedRetries());
    assertEquals(0, scheduler.takeFailedRetries(), "taken");
    Await.until(
        "the id free again after the success",
        java.time.Duration.ofMinutes(1),
        () -> scheduler.afterDelayOnce("purge", 0, () -> null),
        free -> free);
  }

  @Test
  void severalRequestsRunAtOnce() throws Exception {
    try (IoScheduler three = new IoScheduler(3)) {
      CountDownLatch all = new CountDownLatch(3);
      List<CompletableFuture<Boolean>> requests = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        requests.add(
            three.io(
                Priority.PRESTAGE,
                () -> {
                  all.countDown();
                  return all.await(10, TimeUnit.SECONDS);
                }));
      }
      for (CompletableFuture<Boolean> request : requests) {
        assertTrue(request.get(10, TimeUnit.SECONDS), "the three requests were in flight at once");
      }
    }
  }

  @Test
  void closeRunsWhatWasQueuedAndRejectsMore() throws Exception {
    List<CompletableFuture<Integer>> queued = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      int n = i;
      queued.add(scheduler.io(Priority.DESTAGE, () -> n));
    }
    scheduler.close();
    for (int i = 0; i < 100; i++) {
      assertEquals(i, queued.get(i).getNow(-1));
    }
    RejectedExecutionException e =
        assertThrows(
            RejectedExecutionException.class, () -> scheduler.io(Priority.PRESTAGE, () -> 1));
    assertEquals("the I/O scheduler is closed", e.getMessage());
  }
}
