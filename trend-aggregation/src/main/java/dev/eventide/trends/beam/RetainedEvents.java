package dev.eventide.trends.beam;

import dev.eventide.blockstore.BlockName;
import dev.eventide.blockstore.BlockStore;
import dev.eventide.blockstore.internal.bag.BlockInfo;
import dev.eventide.blockstore.internal.bag.TieredBag;
import dev.eventide.trends.Event;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongPredicate;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.CoderException;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.state.BagState;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.util.CoderUtils;

/**
 * The events one key of {@link TrendAggregateFn} keeps for re-evaluating windows with late events:
 * a {@link TieredBag} whose memory bucket and manifest are Beam state cells of the key and whose
 * blocks, when a block store is given, carry the time range of their events, so a re-evaluation
 * reads only the blocks that reach into its windows, and expiry deletes whole blocks once the
 * windows of their newest event have expired, instead of rewriting the bag. Only the memory bucket
 * (at most its bound plus a firing's events) is ever rewritten.
 *
 * <p>Keys written before the bag (a job restored from a savepoint of an earlier build) kept their
 * memory bucket as a bag of events ({@code retained}) and their blocks in another format, named by
 * a rewritten list ({@code retainedBlocks}). The first firing that touches such a key moves the old
 * bucket's events into the bag; the old blocks stay where they are, are read by re-evaluations and
 * expire as before, until none is left. Blocks are never moved: a move's deletes would be durable
 * before the state naming the new blocks is.
 *
 * <p>One instance per key and firing, over that key's state cells; not thread-safe.
 */
final class RetainedEvents {

  /** The key's state cells. */
  record Cells(
      BagState<byte[]> bucket,
      BagState<BlockInfo> manifest,
      BagState<Event> legacyBucket,
      ValueState<List<LegacyBlock>> legacyManifest) {

    void readLater(boolean withBlocks) {
      bucket.readLater();
      legacyBucket.readLater();
      if (withBlocks) {
        manifest.readLater();
        legacyManifest.readLater();
      }
    }

    void clear() {
      bucket.clear();
      manifest.clear();
      legacyBucket.clear();
      legacyManifest.clear();
    }
  }

  /** A block written before the tiered bag: its path, time range and number of events. */
  record LegacyBlock(String path, long minTime, long maxTime, int events) {
    BlockName name() {
      return BlockName.parse(path);
    }
  }

  private final BlockStore store; // null: everything stays in the memory bucket
  private final String owner;
  private final String legacyOwner;
  private final Cells cells;
  private final Progress progress;
  private final TieredBag<Event> bag;
  private boolean legacyBucketMoved;

  /**
   * @param owner the owner of the bag's blocks
   * @param legacyOwner the owner of blocks written before the bag: another name, so that neither
   *     collects the other's blocks as orphans
   */
  RetainedEvents(
      BlockStore store,
      String owner,
      String legacyOwner,
      long memoryLimit,
      Cells cells,
      Progress progress) {
    this.store = store;
    this.owner = owner;
    this.legacyOwner = legacyOwner;
    this.cells = cells;
    this.progress = progress;
    this.bag =
        new TieredBag<>(
            owner,
            RetainedBlocks.EVENTS,
            Event::time,
            new BeamState(cells, progress),
            store,
            new TieredBag.Limits(store == null ? Long.MAX_VALUE : memoryLimit, Long.MAX_VALUE));
  }

  /** Schedules the reads of a firing that will read these events. */
  void readLater() {
    cells.readLater(store != null);
  }

  /** Keeps the events; writes the memory bucket out as a block once it exceeds its bound. */
  void add(Collection<Event> events) {
    moveLegacyBucket();
    try {
      bag.addAll(events);
    } catch (IOException e) {
      throw failure("could not keep " + events.size() + " events", e);
    }
  }

  /** The retained events at or after {@code from}, reading only the blocks that hold some. */
  List<Event> from(long from) {
    moveLegacyBucket();
    List<Event> events = new ArrayList<>();
    try {
      bag.readFrom(from).forEach(events::add);
    } catch (java.io.UncheckedIOException e) {
      throw failure("could not read the retained events", e.getCause());
    }
    for (LegacyBlock b : legacyBlocks()) {
      if (b.maxTime() >= from) {
        for (Event e : readLegacy(b)) {
          if (e.time() >= from) {
            events.add(e);
          }
        }
      }
    }
    return events;
  }

  /**
   * Keeps in the memory bucket the events whose time {@code keep} accepts (called once per event,
   * with the time read from its encoding: nothing is decoded), for expiry; returns how many went.
   */
  int retainInMemory(LongPredicate keep) {
    moveLegacyBucket();
    return bag.retainEncodedInMemory(encoded -> keep.test(EventCoder.timeOf(encoded)));
  }

  /** The latest event time of each block. */
  List<Long> blockMaxTimes() {
    List<Long> times = new ArrayList<>();
    if (store != null) {
      bag.blocks().forEach(b -> times.add(b.maxTime()));
      legacyBlocks().forEach(b -> times.add(b.maxTime()));
    }
    return times;
  }

  /** Whether the key keeps no block. */
  boolean noBlocks() {
    return store == null || (bag.blocks().isEmpty() && legacyBlocks().isEmpty());
  }

  /**
   * Deletes the blocks whose newest event time passes the test, from the manifest and then from the
   * store, and then any block of the owner the manifest does not name (one written before a failure
   * that lost the manifest's update); returns how many blocks were deleted.
   */
  int deleteBlocks(LongPredicate expiredAt) {
    if (store == null) {
      return 0;
    }
    try {
      return bag.deleteBlocks(expiredAt) + deleteLegacyBlocks(expiredAt);
    } catch (IOException e) {
      throw failure("could not delete expired blocks", e);
    }
  }

  /** Deletes every block of the owner, named in the manifest or not; returns how many. */
  int deleteAllBlocks() {
    if (store == null) {
      return 0;
    }
    try {
      int deleted = bag.deleteBlocks(maxTime -> true);
      if (deleted == 0) {
        deleted = bag.collectGarbage();
      }
      return deleted + deleteLegacyBlocks(maxTime -> true);
    } catch (IOException e) {
      throw failure("could not delete the blocks", e);
    }
  }

  /** Clears the key's cells (its blocks are gone already). */
  void clearState() {
    cells.clear();
    progress.retainedInMemory = 0;
  }

  /**
   * Moves the events of a memory bucket kept before the bag into it, once per firing. The old
   * bucket's count is what {@code retainedInMemory} counted: the bag's own bucket is empty then,
   * since every firing that touches a key moves the old bucket first.
   */
  private void moveLegacyBucket() {
    if (legacyBucketMoved) {
      return;
    }
    legacyBucketMoved = true;
    List<Event> legacy = new ArrayList<>();
    cells.legacyBucket().read().forEach(legacy::add);
    if (legacy.isEmpty()) {
      return;
    }
    cells.legacyBucket().clear();
    progress.retainedInMemory = 0;
    try {
      bag.addAll(legacy);
    } catch (IOException e) {
      throw failure("could not move " + legacy.size() + " events of an earlier build", e);
    }
  }

  private List<LegacyBlock> legacyBlocks() {
    List<LegacyBlock> blocks = store == null ? null : cells.legacyManifest().read();
    return blocks == null ? List.of() : blocks;
  }

  /** Deletes old blocks as the code that wrote them did, orphans of their owner included. */
  private int deleteLegacyBlocks(LongPredicate expiredAt) throws IOException {
    List<LegacyBlock> blocks = legacyBlocks();
    if (blocks.isEmpty()) {
      return 0;
    }
    List<LegacyBlock> kept = new ArrayList<>();
    List<LegacyBlock> gone = new ArrayList<>();
    for (LegacyBlock b : blocks) {
      (expiredAt.test(b.maxTime()) ? gone : kept).add(b);
    }
    if (gone.isEmpty()) {
      return 0;
    }
    if (kept.isEmpty()) {
      cells.legacyManifest().clear();
    } else {
      cells.legacyManifest().write(kept);
    }
    Set<BlockName> named = new HashSet<>();
    kept.forEach(b -> named.add(b.name()));
    for (LegacyBlock b : gone) {
      store.delete(b.name());
    }
    int orphans = 0;
    for (BlockName name : store.list(legacyOwner)) {
      if (!named.contains(name)) {
        store.delete(name);
        orphans++;
      }
    }
    return gone.size() + orphans;
  }

  private static final ListCoder<Event> LEGACY_BLOCK = ListCoder.of(EventCoder.of());

  private List<Event> readLegacy(LegacyBlock b) {
    try {
      List<Event> events = CoderUtils.decodeFromByteArray(LEGACY_BLOCK, store.read(b.name()));
      if (events.size() != b.events()) {
        throw new IOException(
            "block "
                + b.path()
                + " holds "
                + events.size()
                + " events where the manifest says "
                + b.events());
      }
      return events;
    } catch (IOException e) {
      throw failure("could not read block " + b.path(), e);
    }
  }

  private IllegalStateException failure(String what, Throwable cause) {
    return new IllegalStateException(
        what
            + " of "
            + owner
            + (store == null ? "" : " in " + store.uri())
            + ": "
            + cause.getMessage(),
        cause);
  }

  /**
   * The bag's state in the key's cells; the memory bucket's size is {@code retainedInMemory} of the
   * key's progress (events: the bucket is bounded in events only).
   */
  private static final class BeamState implements dev.eventide.blockstore.internal.bag.BagState {
    private final Cells cells;
    private final Progress progress;

    BeamState(Cells cells, Progress progress) {
      this.cells = cells;
      this.progress = progress;
    }

    @Override
    public Iterable<byte[]> memory() {
      return cells.bucket().read();
    }

    @Override
    public void addToMemory(byte[] encoded) {
      cells.bucket().add(encoded);
    }

    @Override
    public void clearMemory() {
      cells.bucket().clear();
      progress.retainedInMemory = 0;
    }

    @Override
    public long[] memorySize() {
      return new long[] {progress.retainedInMemory, 0};
    }

    @Override
    public void setMemorySize(long elements, long bytes) {
      progress.retainedInMemory = elements;
    }

    @Override
    public List<BlockInfo> manifest() {
      List<BlockInfo> blocks = new ArrayList<>();
      cells.manifest().read().forEach(blocks::add);
      return blocks;
    }

    @Override
    public void appendToManifest(BlockInfo block) {
      cells.manifest().add(block);
    }

    @Override
    public void replaceManifest(List<BlockInfo> blocks) {
      cells.manifest().clear();
      blocks.forEach(cells.manifest()::add);
    }

    @Override
    public void clearManifest() {
      cells.manifest().clear();
    }
  }

  /**
   * The coder of the list that named blocks before the bag, still read from restored state. Its
   * name stays: Flink's snapshot of a state's serializer holds the coder, Java-serialized.
   */
  static final class ManifestCoder extends AtomicCoder<List<LegacyBlock>> {
    private static final long serialVersionUID = 1L;
    private static final int VERSION = 1;

    @Override
    public void encode(List<LegacyBlock> blocks, OutputStream stream) throws IOException {
      DataOutputStream out = new DataOutputStream(stream);
      out.writeByte(VERSION);
      out.writeInt(blocks.size());
      for (LegacyBlock b : blocks) {
        out.writeUTF(b.path());
        out.writeLong(b.minTime());
        out.writeLong(b.maxTime());
        out.writeInt(b.events());
      }
      out.flush();
    }

    @Override
    public List<LegacyBlock> decode(InputStream stream) throws IOException {
      DataInputStream in = new DataInputStream(stream);
      int version = in.readUnsignedByte();
      if (version != VERSION) {
        throw new CoderException(
            "retained-event manifest of version " + version + ", expected " + VERSION);
      }
      int size = in.readInt();
      List<LegacyBlock> blocks = new ArrayList<>(size);
      for (int i = 0; i < size; i++) {
        blocks.add(new LegacyBlock(in.readUTF(), in.readLong(), in.readLong(), in.readInt()));
      }
      return blocks;
    }
  }
}
