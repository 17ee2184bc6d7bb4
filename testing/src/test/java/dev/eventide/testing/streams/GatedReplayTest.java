package dev.eventide.testing.streams;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.testing.runners.OnEachRunner;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.testing.waits.Await;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.Combine;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

class GatedReplayTest {
  private static final Duration WINDOW = Duration.millis(10);
  private static final Duration LATENESS = Duration.millis(100);

  /**
   * Late and dropped as the scenario says, on each runner: Flink's own TestStream would deliver the
   * late elements before the watermarks, into the on-time panes.
   */
  @OnEachRunner
  void elementsAfterAnAdvanceAreLateForTheWindowsItPassed(TestPipeline p) {
    p.getOptions().as(FlinkPipelineOptions.class).setMaxBundleSize(1L);
    for (int round = 0; round < 5; round++) {
      long base = round * 1_000L;
      EventTimeStream<Integer> s =
          EventTimeStream.of(VarIntCoder.of())
              .withWindowing(FixedWindows.of(WINDOW), LATENESS)
              .onTime(1, t(base + 5))
              .onTime(2, t(base + 15))
              .advanceWatermarkTo(t(base + 30))
              .lateWithinLateness(3, t(base + 3))
              .lateWithinLateness(4, t(base + 4))
              .advanceWatermarkTo(t(base + 500))
              .lateBeyondLateness(5, t(base + 6));
      PCollection<Long> counts =
          p.apply("Replay " + round, s.replay())
              .apply(
                  "Window " + round,
                  Window.<Integer>into(FixedWindows.of(WINDOW))
                      .withAllowedLateness(LATENESS)
                      .discardingFiredPanes())
              .apply(
                  "Count " + round, Combine.globally(Count.<Integer>combineFn()).withoutDefaults());
      IntervalWindow first = new IntervalWindow(t(base), WINDOW);
      PAssert.that("on time " + round, counts).inOnTimePane(first).containsInAnyOrder(1L);
      PAssert.that("late " + round, counts)
          .inLatePane(first)
          .satisfies(
              late -> {
                long total = 0;
                for (long c : late) {
                  total += c;
                }
                if (total != 2) {
                  throw new AssertionError("late panes of [0, 10) hold " + total + ", not 2");
                }
                return null;
              });
      PAssert.that("second " + round, counts)
          .inOnTimePane(new IntervalWindow(t(base + 10), WINDOW))
          .containsInAnyOrder(1L);
    }
    p.run();
  }

  @Test
  void aProbedTransformNeedsTheReplayAppliedFirst() {
    GatedReplay<Integer> replay =
        GatedReplay.builder(VarIntCoder.of()).add(1, t(1)).advanceWatermarkTo(t(5)).build();
    Pipeline p = Pipeline.create();
    PCollection<Integer> other = p.apply(Create.of(1));
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> other.apply(replay.probed(Filter.by((Integer x) -> x > 0))));
    assertTrue(e.getMessage().contains("apply the GatedReplay before"), e.getMessage());
    p.apply("Replay", replay);
    assertThrows(IllegalStateException.class, () -> p.apply("Again", replay));
  }

  /**
   * A gate whose probes never see the advance (a runner in other processes) fails the read at its
   * limit, naming the watermark it waited for and what its probes saw.
   */
  @Test
  void aWatermarkNeverObservedFailsTheReadAtItsLimitSayingWhatItWaitedFor() throws Exception {
    GatedReplay<Integer> replay =
        GatedReplay.builder(VarIntCoder.of())
            .add(1, t(1))
            .advanceWatermarkTo(t(15_000))
            .add(2, t(2))
            .maxWait(Duration.millis(200))
            .build();
    var reader = replay.unobservedSource().createReader(PipelineOptionsFactory.create(), null);
    assertTrue(reader.start(), "the element before the advance");
    assertTrue(reader.advance(), "the advance's marker");
    long start = System.nanoTime();
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> {
              while (System.nanoTime() - start < TimeUnit.MINUTES.toNanos(1)) {
                assertFalse(reader.advance(), "nothing after the advance until it is observed");
                Thread.sleep(10);
              }
            });
    assertThat(
        e.getMessage(),
        startsWith(
            "GatedReplay waited PT0.200S for watermark 1970-01-01T00:00:15.000Z to reach its"
                + " probes; last seen: no watermark yet."));
  }

  @Test
  void rejectsAMaxWaitThatIsNotPositive() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> GatedReplay.builder(VarIntCoder.of()).maxWait(Duration.ZERO));
    assertThat(e.getMessage(), equalTo("maxWait must be > 0, but was PT0S"));
  }

  @Test
  void theWatermarkOnlyMovesForward() {
    GatedReplay.Builder<Integer> b = GatedReplay.builder(VarIntCoder.of()).advanceWatermarkTo(t(5));
    assertThrows(IllegalArgumentException.class, () -> b.advanceWatermarkTo(t(5)));
  }

  private static Instant t(long millis) {
    return new Instant(millis);
  }

  private static final Set<Integer> SEEN = ConcurrentHashMap.newKeySet();
  private static final AtomicBoolean RELEASED = new AtomicBoolean();

  /** Keeps what it sees. */
  private static final class Keep extends DoFn<Integer, Void> {
    @ProcessElement
    public void process(@Element Integer x) {
      SEEN.add(x);
    }
  }

  /**
   * A hold keeps the stream open, its watermark where the steps before left it, until released:
   * what came before it is read, what comes after is not, and the pipeline does not end.
   */
  @Test
  void aHoldKeepsTheStreamOpenUntilReleased() throws Exception {
    SEEN.clear();
    RELEASED.set(false);
    PipelineOptions options = TestRunner.DIRECT.options(1);
    options.as(DirectOptions.class).setBlockOnRun(false);
    Pipeline p = Pipeline.create(options);
    p.apply(
            GatedReplay.builder(VarIntCoder.of())
                .add(1, t(5))
                .advanceWatermarkTo(t(100))
                .holdUntil("the test's release", () -> RELEASED.get())
                .add(2, t(150))
                .build())
        .apply(ParDo.of(new Keep()));
    PipelineResult result = p.run();
    Await.until(
        "the element before the hold", java.time.Duration.ofMinutes(2), SEEN::size, n -> n >= 1);
    assertFalse(result.getState().isTerminal(), "the pipeline ended during the hold");
    assertFalse(SEEN.contains(2), "an element after the hold was read");
    RELEASED.set(true);
    result.waitUntilFinish();
    assertTrue(SEEN.contains(2), "the element after the hold was read once released");
  }

  /** A hold never released fails the read at the replay's limit, saying what it waited for. */
  @Test
  void aHoldNeverReleasedFailsAtItsLimit() {
    Pipeline p = Pipeline.create(TestRunner.DIRECT.options(1));
    p.apply(
        GatedReplay.builder(VarIntCoder.of())
            .add(1, t(5))
            .holdUntil("a release that never comes", () -> false)
            .maxWait(Duration.millis(200))
            .build());
    Exception e = assertThrows(Exception.class, () -> p.run().waitUntilFinish());
    String message = String.valueOf(e.getMessage());
    Throwable cause = e;
    while (cause.getCause() != null && !message.contains("a release that never comes")) {
      cause = cause.getCause();
      message = String.valueOf(cause.getMessage());
    }
    assertThat(message, startsWith("GatedReplay waited PT0.200S for released: a release that"));
  }
}
