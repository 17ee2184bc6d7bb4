package dev.eventide.trends.beam;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.blockstore.BlockName;
import dev.eventide.blockstore.BlockStore;
import dev.eventide.blockstore.BlockStores;
import dev.eventide.blockstore.internal.bag.BlockInfo;
import dev.eventide.trends.Event;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import org.apache.beam.runners.core.InMemoryStateInternals;
import org.apache.beam.runners.core.StateNamespaces;
import org.apache.beam.runners.core.StateTags;
import org.apache.beam.sdk.coders.ByteArrayCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.util.CoderUtils;
import org.junit.jupiter.api.Test;

/**
 * A key's retained events in its Beam state cells (runners-core's in-memory state, the cells {@link
 * TrendAggregateFn} declares), and the keys a job restored from a savepoint of an earlier build
 * brings: their old memory bucket and blocks, written here as that build wrote them.
 */
class RetainedEventsTest {
  private final InMemoryStateInternals<String> state = InMemoryStateInternals.forKey("k");
  private final BagState<byte[]> bucket =
      state.state(StateNamespaces.global(), StateTags.bag("retainedBucket", ByteArrayCoder.of()));
  private final BagState<BlockInfo> manifest =
      state.state(
          StateNamespaces.global(),
          StateTags.bag("retainedManifest", RetainedBlocks.InfoCoder.of()));
  private final BagState<Event> legacyBucket =
      state.state(StateNamespaces.global(), StateTags.bag("retained", EventCoder.of()));
  private final ValueState<List<RetainedEvents.LegacyBlock>> legacyManifest =
      state.state(
          StateNamespaces.global(),
          StateTags.value("retainedBlocks", new RetainedEvents.ManifestCoder()));
  private final BlockStore store;
  private final Progress progress = new Progress();

  RetainedEventsTest() throws java.io.IOException {
    store = BlockStores.open("memory:" + UUID.randomUUID());
  }

  private RetainedEvents retained(BlockStore store, long memoryEvents) {
    RetainedEvents retained =
        new RetainedEvents(
            store,
            "trends/q/k",
            "trend-aggregate/q/k",
            memoryEvents,
            new RetainedEvents.Cells(bucket, manifest, legacyBucket, legacyManifest),
            progress);
    retained.readLater();
    return retained;
  }

  private static Event at(long time) {
    return Event.of("A", time, "id", time);
  }

  private static List<Long> times(List<Event> events) {
    return events.stream().map(Event::time).sorted(Comparator.naturalOrder()).toList();
  }

  private static List<Event> events(long... times) {
    List<Event> events = new ArrayList<>();
    for (long t : times) {
      events.add(at(t));
    }
    return events;
  }

  /** A block as the build before the tiered bag wrote it: a list of events in Beam's ListCoder. */
  private RetainedEvents.LegacyBlock legacyBlock(long... times) throws Exception {
    byte[] contents = CoderUtils.encodeToByteArray(ListCoder.of(EventCoder.of()), events(times));
    BlockName name = store.write("trend-aggregate/q/k", contents);
    return new RetainedEvents.LegacyBlock(
        name.path(), times[0], times[times.length - 1], times.length);
  }

  @Test
  void eventsSpillToBlocksThatCarryTheirTimes() {
    RetainedEvents retained = retained(store, 3);
    retained.add(events(1, 2));
    assertTrue(retained.noBlocks());
    retained.add(events(3, 4)); // four in the bucket, over 3: one block
    assertEquals(List.of(4L), retained.blockMaxTimes());
    retained.add(events(7, 9));
    assertEquals(2, progress.retainedInMemory);
    assertEquals(List.of(3L, 4L, 7L, 9L), times(retained.from(3)));
    assertEquals(1, retained.retainInMemory(time -> time > 7));
    assertEquals(List.of(1L, 2L, 3L, 4L, 9L), times(retained.from(0)));
    assertEquals(1, retained.deleteBlocks(maxTime -> maxTime <= 4));
    assertTrue(retained.noBlocks());
    assertEquals(List.of(9L), times(retained.from(0)));
  }

  @Test
  void withoutAStoreEverythingStaysInTheBucket() {
    RetainedEvents retained = retained(null, 1);
    retained.add(events(1, 2, 3));
    retained.add(events(4));
    assertTrue(retained.noBlocks());
    assertEquals(List.of(), retained.blockMaxTimes());
    assertEquals(4, progress.retainedInMemory);
    assertEquals(List.of(2L, 3L, 4L), times(retained.from(2)));
    assertEquals(0, retained.deleteAllBlocks());
  }

  @Test
  void aKeyOfAnEarlierBuildLosesNoEventAndItsOldCellsEnd() throws Exception {
    legacyBucket.add(at(5));
    legacyBucket.add(at(6));
    legacyManifest.write(List.of(legacyBlock(1, 2, 3)));
    progress.retainedInMemory = 2; // what that build counted: its bucket
    RetainedEvents retained = retained(store, 10);
    assertEquals(List.of(1L, 2L, 3L, 5L, 6L), times(retained.from(0)));
    assertTrue(legacyBucket.read().iterator().hasNext() == false, "the old bucket has moved");
    assertEquals(2, progress.retainedInMemory, "now the bag's bucket");
    assertEquals(List.of(3L), retained.blockMaxTimes());
    assertEquals(List.of(2L, 3L, 5L, 6L), times(retained.from(2)));

    retained.add(events(8));
    assertEquals(3, progress.retainedInMemory);
    assertEquals(0, retained.deleteBlocks(maxTime -> maxTime < 3), "the old block ends at 3");
    assertEquals(1, retained.deleteBlocks(maxTime -> maxTime <= 3));
    assertEquals(null, legacyManifest.read());
    assertEquals(List.of(), store.list("trend-aggregate/q/k"));
    assertEquals(List.of(5L, 6L, 8L), times(retained.from(0)));
  }

  @Test
  void neitherOwnerCollectsTheOthersBlocks() throws Exception {
    legacyManifest.write(List.of(legacyBlock(1, 2)));
    RetainedEvents retained = retained(store, 1);
    retained.add(events(3, 4)); // a block of the bag
    retained.add(events(5, 6)); // another
    store.write("trends/q/k", new byte[] {9}); // an orphan of the bag's owner
    store.write("trend-aggregate/q/k", new byte[] {8}); // and one of the old owner
    assertEquals(1 + 1, retained.deleteBlocks(maxTime -> maxTime == 4), "a block and its orphan");
    assertEquals(List.of(6L, 2L), retained.blockMaxTimes());
    assertEquals(List.of(1L, 2L, 5L, 6L), times(retained.from(0)));
    assertEquals(2, store.list("trend-aggregate/q/k").size(), "the old block and its orphan");
    assertEquals(3, retained.deleteAllBlocks(), "the bag's block, the old one and its orphan");
    assertEquals(List.of(), store.list("trends/q/k"));
    assertEquals(List.of(), store.list("trend-aggregate/q/k"));
    retained.clearState();
    assertEquals(List.of(), times(retained.from(0)));
  }

  @Test
  void aMissingBlockFailsNamingTheKeyAndTheStore() throws Exception {
    RetainedEvents retained = retained(store, 1);
    retained.add(events(1, 2));
    for (BlockInfo block : manifest.read()) {
      store.delete(block.name());
    }
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> retained.from(0));
    assertTrue(e.getMessage().startsWith("could not read the retained events of "), e.getMessage());
    assertTrue(e.getMessage().contains(store.uri()), e.getMessage());
  }
}
