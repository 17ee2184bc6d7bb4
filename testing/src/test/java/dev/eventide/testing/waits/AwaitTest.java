package dev.eventide.testing.waits;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class AwaitTest {
  @Test
  void aStateThatNeverComesFailsAtTheLimitNamingWhatAndTheLastValueSeen() {
    Duration limit = Duration.ofMillis(300);
    long start = System.nanoTime();
    AssertionError e =
        assertThrows(
            AssertionError.class,
            () ->
                Await.until(
                    "the watermark of step Sum at 15000",
                    limit,
                    () -> 9999L,
                    w -> w >= 15000,
                    () -> "log tail"));
    long waited = System.nanoTime() - start;
    assertThat(
        e.getMessage(),
        equalTo(
            "the watermark of step Sum at 15000 not reached within 300 ms; last seen: 9999\n"
                + "log tail"));
    assertThat("it waited the whole limit", waited, greaterThanOrEqualTo(limit.toNanos()));
  }

  @Test
  void aStateThatComesEndsTheWaitWithWhatWasRead() throws Exception {
    AtomicInteger reads = new AtomicInteger();
    int seen =
        Await.until("three reads", Duration.ofMinutes(1), reads::incrementAndGet, n -> n >= 3);
    assertThat(seen, equalTo(3));
  }

  @Test
  void aProbeThatFailsEndsTheWaitWithItsFailure() {
    IOException e =
        assertThrows(
            IOException.class,
            () ->
                Await.until(
                    "a broken probe",
                    Duration.ofMinutes(1),
                    () -> {
                      throw new IOException("no answer");
                    },
                    x -> true));
    assertThat(e.getMessage(), equalTo("no answer"));
  }

  @Test
  void rejectsALimitThatIsNotPositive() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> Await.until("x", Duration.ZERO, () -> 1, x -> false));
    assertThat(e.getMessage(), equalTo("limit must be > 0, but was PT0S"));
  }

  @Test
  void aThreadThatNeverEndsFailsTheJoinWithWhereItIs() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    Thread stuck =
        new Thread(
            () -> {
              try {
                never.await();
              } catch (InterruptedException stopped) {
                Thread.currentThread().interrupt();
              }
            },
            "stuck-writer");
    stuck.setDaemon(true);
    stuck.start();
    try {
      AssertionError e =
          assertThrows(
              AssertionError.class, () -> Await.join("the writer", Duration.ofMillis(200), stuck));
      assertThat(
          e.getMessage(),
          containsString("the writer did not end within 200 ms; thread stuck-writer is at:"));
      assertThat(e.getMessage(), containsString("CountDownLatch.await"));
    } finally {
      never.countDown();
    }
  }

  @Test
  void aProcessThatNeverExitsIsKilledAtTheLimit() throws Exception {
    Process sleeper = new ProcessBuilder("sleep", "600").start();
    AssertionError e =
        assertThrows(
            AssertionError.class, () -> Await.exitOf("sleep 600", Duration.ofMillis(200), sleeper));
    assertThat(e.getMessage(), equalTo("sleep 600 did not exit within 200 ms; killed it"));
    assertThat(
        "killed",
        Await.exitOf("the killed sleep", Duration.ofMinutes(1), sleeper) != 0,
        equalTo(true));
  }

  @Test
  void limitsReadAtAGlance() {
    assertThat(Await.describe(Duration.ofMillis(250)), equalTo("250 ms"));
    assertThat(Await.describe(Duration.ofMinutes(3)), equalTo("180 s"));
    assertThat(Await.describe(Duration.ofMillis(1500)), equalTo("1.5 s"));
  }
}
