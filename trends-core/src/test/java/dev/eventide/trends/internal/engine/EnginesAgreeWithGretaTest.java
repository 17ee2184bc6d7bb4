package dev.eventide.trends.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.eventide.testing.differential.Seeds;
import dev.eventide.trends.BruteForce;
import dev.eventide.trends.Event;
import dev.eventide.trends.RandomWorkloads;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.query.Workload;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The incremental engines against GRETA, the per-edge baseline (quadratic, not exponential, so it
 * reaches windows that brute force cannot): seeded random workloads of every pattern form with NOT,
 * NEXT, equivalence, GROUPBY, sliding windows and all six aggregates, over thousands of small
 * streams and over windows of 1,000 to 20,000 events.
 */
class EnginesAgreeWithGretaTest {
  private static final List<Engines> INCREMENTAL =
      List.of(Engines.HAMLET, Engines.HAMLET_STATIC, Engines.UNSHARED);

  @Test
  void agreeOnThousandsOfSmallRandomCases() {
    for (long seed : Seeds.range(10_000, 4_000).toArray()) {
      RandomWorkloads random = new RandomWorkloads(seed);
      Workload workload = Workload.parse(random.workload(4));
      List<Event> events = random.events(60, 50);
      assertAgree(seed, workload, events);
    }
  }

  @Test
  void agreeOnSharableWorkloadsOverLongBurstyStreams() {
    for (long seed : Seeds.range(0, 300).toArray()) {
      RandomWorkloads random = new RandomWorkloads(seed);
      Workload workload = Workload.parse(random.sharableWorkload(6));
      assertAgree(seed, workload, random.burstyEvents(300));
    }
  }

  @Test
  void agreeOnWindowsOfOneToTwentyThousandEvents() {
    int[] perWindow = {1_000, 2_000, 5_000, 20_000};
    for (int i = 0; i < perWindow.length; i++) {
      for (long seed = 0; seed < (perWindow[i] > 5_000 ? 1 : 3); seed++) {
        RandomWorkloads random = new RandomWorkloads(100 * i + seed);
        Workload workload =
            Workload.parse(random.largeWindowWorkload(perWindow[i] > 5_000 ? 3 : 6));
        // Two windows' worth of events over 1,000 ms: WITHIN 500 ms holds about half of them.
        List<Event> events = random.denseEvents(2 * perWindow[i], 1_000);
        assertAgree(seed, workload, events);
      }
    }
  }

  static void assertAgree(long seed, Workload workload, List<Event> events) {
    List<TrendResult> expected = sorted(Engines.GRETA.evaluate(workload, events));
    for (Engines engine : INCREMENTAL) {
      List<TrendResult> actual = sorted(engine.evaluate(workload, events));
      assertEquals(
          expected,
          actual,
          () ->
              engine.cliName()
                  + " differs from greta, seed "
                  + seed
                  + "\nworkload:\n"
                  + workload.queries()
                  + (events.size() <= 400 ? "\nevents: " + events : ""));
    }
  }

  private static List<TrendResult> sorted(List<TrendResult> results) {
    List<TrendResult> copy = new ArrayList<>(results);
    copy.sort(BruteForce.ORDER);
    return copy;
  }
}
