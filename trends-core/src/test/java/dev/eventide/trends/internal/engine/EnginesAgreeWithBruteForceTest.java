package dev.eventide.trends.internal.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.eventide.testing.differential.Seeds;
import dev.eventide.trends.BruteForce;
import dev.eventide.trends.Event;
import dev.eventide.trends.RandomWorkloads;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.query.Workload;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The heart of the module's correctness: on thousands of seeded random workloads (every pattern
 * form, predicates that differ across queries, equivalence, groups, sliding windows) and streams,
 * GRETA, HAMLET dynamic and HAMLET static all equal the brute-force enumerator.
 */
class EnginesAgreeWithBruteForceTest {

  @Test
  void everyEngineEqualsBruteForceOnRandomWorkloadsOfEveryPatternForm() {
    for (long seed : Seeds.range(0, 3000).toArray()) {
      RandomWorkloads random = new RandomWorkloads(seed);
      Workload workload = Workload.parse(random.workload(3));
      List<Event> events = random.events(16, 40);
      assertAllAgree(seed, workload, events);
    }
  }

  @Test
  void everyEngineEqualsBruteForceOnSharableWorkloadsOverBurstyStreams() {
    for (long seed : Seeds.range(0, 1500).toArray()) {
      RandomWorkloads random = new RandomWorkloads(seed);
      Workload workload = Workload.parse(random.sharableWorkload(4));
      List<Event> events = random.burstyEvents(24);
      assertAllAgree(seed, workload, events);
    }
  }

  static void assertAllAgree(long seed, Workload workload, List<Event> events) {
    List<TrendResult> expected = BruteForce.evaluate(workload, events);
    for (Engines engine : Engines.values()) {
      List<TrendResult> actual = new java.util.ArrayList<>(engine.evaluate(workload, events));
      actual.sort(BruteForce.ORDER);
      assertEquals(
          expected,
          actual,
          () ->
              engine
                  + " differs from brute force, seed "
                  + seed
                  + "\nworkload:\n"
                  + workload.queries()
                  + "\nevents: "
                  + events);
    }
  }
}
