package dev.eventide.pipelines.soak;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongUnaryOperator;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

/** The verdict on a run's shape, on readings made up to be flat, growing and too few. */
class SoakVerdictTest {
  /** 110 readings, one per 1,000 events, of a gauge {@code held(events)}. */
  private static List<SoakSample> run(LongUnaryOperator held) {
    return run(held, e -> -1, e -> -1);
  }

  /** As {@link #run(LongUnaryOperator)}, with a checkpoint's file size and live state. */
  private static List<SoakSample> run(
      LongUnaryOperator held, LongUnaryOperator checkpointFiles, LongUnaryOperator checkpointLive) {
    List<SoakSample> samples = new ArrayList<>();
    for (long i = 1; i <= 110; i++) {
      long events = i * 1_000;
      samples.add(
          new SoakSample(
              i,
              events,
              new Instant(events),
              Map.of("keys", held.applyAsLong(events)),
              -1,
              checkpointFiles.applyAsLong(events),
              checkpointLive.applyAsLong(events),
              -1,
              -1,
              Map.of()));
    }
    return samples;
  }

  @Test
  void flatAfterAWarmUpThatGrew() {
    // Grows during the warm-up (the first 10,000 events), then holds 5,000 give or take 4%.
    SoakVerdict verdict =
        SoakVerdict.judge(
            run(e -> e < 10_000 ? e / 2 : 5_000 + (e / 1_000 % 2) * 200), 10, 0.10, Set.of());
    assertTrue(verdict.flat(), verdict.line());
    assertEquals(0.0, verdict.changes().get("keys"), 0.01);
    assertThat(verdict.line(), startsWith("FLAT (within ±10%) after a warm-up of 10,000 of"));
  }

  @Test
  void growingStateIsCalledSo() {
    SoakVerdict verdict = SoakVerdict.judge(run(e -> e / 10), 10, 0.10, Set.of());
    assertFalse(verdict.flat());
    // Middle third: readings at 44,000 to 76,000 events (mean 6,000); last: 77,000 to 110,000
    // (mean 9,350).
    assertEquals(9_350.0 / 6_000 - 1, verdict.changes().get("keys"), 1e-9);
    assertThat(verdict.line(), startsWith("GROWING (beyond ±10%: keys +55.8%)"));
  }

  @Test
  void seriesReportedOnlyAreNotJudged() {
    SoakVerdict verdict = SoakVerdict.judge(run(e -> e / 10), 10, 0.10, Set.of("keys"));
    assertTrue(verdict.flat(), verdict.line());
    assertThat(verdict.line(), containsString("keys +55.8%"));
  }

  @Test
  void aCheckpointsFilesAreReportedNotJudgedWhereItsLiveStateWasRead() {
    // RocksDB's files grow with what it has not compacted yet; the live state is flat.
    List<SoakSample> compacting = run(e -> 5_000, e -> 1_000_000 + e * 100, e -> 400_000);
    SoakVerdict verdict =
        SoakVerdict.judge(compacting, 10, 0.10, SoakGauges.reportedOnly(compacting));
    assertTrue(verdict.flat(), verdict.line());
    assertEquals(0.0, verdict.changes().get("checkpointLiveBytes"), 1e-9);
    assertTrue(verdict.changes().get("checkpointBytes") > 0.10, verdict.line());
    // Without the live state, the files are all there is, and judged.
    List<SoakSample> filesOnly = run(e -> 5_000, e -> 1_000_000 + e * 100, e -> -1);
    assertFalse(SoakVerdict.judge(filesOnly, 10, 0.10, SoakGauges.reportedOnly(filesOnly)).flat());
  }

  @Test
  void aFewHeldKeysAreJudgedAgainstTheFloor() {
    // 5 keys held, then 30: +500% of its own mean, +25% of the floor of 100.
    SoakVerdict verdict = SoakVerdict.judge(run(e -> e < 77_000 ? 5 : 30), 10, 0.10, Set.of());
    assertEquals(0.25, verdict.changes().get("keys"), 1e-9);
    assertFalse(verdict.flat());
    SoakVerdict steady = SoakVerdict.judge(run(e -> e < 77_000 ? 5 : 9), 10, 0.10, Set.of());
    assertTrue(steady.flat(), steady.line());
  }

  @Test
  void refusesARunWithoutEventsOrWithTooFewReadings() {
    assertThat(
        assertThrows(
                IllegalArgumentException.class,
                () -> SoakVerdict.judge(run(e -> 0).subList(0, 0), 10, 0.1, Set.of()))
            .getMessage(),
        containsString("no event was read"));
    List<SoakSample> two = run(e -> 1).subList(108, 110);
    assertThat(
        assertThrows(
                IllegalArgumentException.class, () -> SoakVerdict.judge(two, 10, 0.1, Set.of()))
            .getMessage(),
        containsString("read more often or run longer"));
  }
}
