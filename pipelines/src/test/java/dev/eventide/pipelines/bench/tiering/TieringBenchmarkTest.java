package dev.eventide.pipelines.bench.tiering;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.eventide.blockstore.BlockStore;
import dev.eventide.blockstore.BlockStores;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The tiering benchmark's window functions. */
class TieringBenchmarkTest {
  private static Reading r(long time, long value) {
    return new Reading(time, value, time * 10);
  }

  @Test
  void windowFunctionsSeeEveryEventInEventTimeOrder() {
    // Arrival order differs from event-time order: bigrams follow event time.
    List<Reading> readings = List.of(r(3, 1), r(1, 1), r(2, 2), r(4, 2), r(5, 1));
    WindowResult bigrams = Workload.BIGRAMS.function().apply(0, null, readings);
    assertThat(bigrams.count(), equalTo(5L));
    assertThat(bigrams.answer(), equalTo("w1 w2 x2")); // 1 2 1 2 1: "w1 w2" twice, "w2 w1" twice
    assertThat(bigrams.newestArrivalNanos(), equalTo(50L));
    WindowResult average = Workload.AVERAGE.function().apply(0, null, readings);
    assertThat(average.answer(), equalTo("1.400"));
  }

  @Test
  void anOutOfMemoryErrorIsToldFromAStackFrameThatNamesIt() {
    assertThat(
        TieringBenchmark.outOfMemory(
            List.of(
                "\tat org.apache.flink.util.ExceptionUtils.tryEnrichOutOfMemoryError("
                    + "ExceptionUtils.java:136)",
                "Caused by: java.lang.reflect.InaccessibleObjectException: Unable to make field")),
        equalTo(Optional.empty()));
    assertThat(
        TieringBenchmark.outOfMemory(
            List.of(
                "RESULT-less log",
                "Terminating due to java.lang.OutOfMemoryError: Java heap space")),
        equalTo(Optional.of("Java heap space")));
  }

  @Test
  void aStatusLineSaysHowMuchOfTheTimeWentToGarbageCollection() {
    assertThat(
        RunStatus.describe(RunStatus.line(412_000, 2_400_000, 93.4, 15, 79_100_000)),
        equalTo(
            Optional.of(
                "412,000 of 2,400,000 events read; in its last 15 s, 93% of the time in garbage"
                    + " collection, 79.1 MB of heap in use")));
    assertThat(RunStatus.describe("RESULT {}"), equalTo(Optional.empty()));
  }

  @Test
  void aDelayedStoreIsOpenedByUriAndKeepsWhatItIsGiven() throws Exception {
    try (BlockStore store = BlockStores.open("delayed:1:memory:delayed-test")) {
      byte[] block = {1, 2, 3};
      assertThat(store.read(store.write("owner", block)), equalTo(block));
    }
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> BlockStores.checkUri("delayed:x:memory:y"));
    assertThat(e.getMessage(), containsString("delayed:MILLIS:URI"));
  }
}
