package dev.eventide.trends.beam;

import dev.eventide.blockstore.BlockName;
import dev.eventide.blockstore.BlockStore;
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
 * a memory bucket in Beam state and, when a block store is given, immutable blocks of events in it,
 * each named in Beam state with the time range of its events. When the memory bucket would exceed
 * its bound it is written out as one block; the block is durable before the manifest names it.
 *
 * <p>This is the two tiers of state-tiering's {@code TieredBag}, with one difference that trends
 * need: a block carries its time range, so a re-evaluation reads only the blocks that reach into
 * its windows, and expiry deletes whole blocks once the windows of their newest event have expired,
 * instead of rewriting the bag. Only the memory bucket (at most its bound) is ever rewritten.
 *
 * <p>One instance per key and firing, over that key's state cells; not thread-safe.
 */
final class RetainedEvents {

  /** A block of retained events: its store path, its events' time range and their number. */
  record Block(String path, long minTime, long maxTime, int events) {
    BlockName name() {
      return BlockName.parse(path);
    }
  }

  private final BlockStore store; // null: everything stays in the memory bucket
  private final String owner;
  private final long memoryLimit;
  private final BagState<Event> memory;
  private final ValueState<List<Block>> manifest;
  private final Progress progress;

  RetainedEvents(
      BlockStore store,
      String owner,
      long memoryLimit,
      BagState<Event> memory,
      ValueState<List<Block>> manifest,
      Progress progress) {
    this.store = store;
    this.owner = owner;
    this.memoryLimit = memoryLimit;
    this.memory = memory;
    this.manifest = manifest;
    this.progress = progress;
  }

  /** Schedules the reads of a firing that will read these events. */
  void readLater() {
    memory.readLater();
    if (store != null) {
      manifest.readLater();
    }
  }

  /** Keeps the events; writes the memory bucket out as a block once it exceeds its bound. */
  void add(Collection<Event> events) {
    events.forEach(memory::add);
    progress.retainedInMemory += events.size();
    if (store != null && progress.retainedInMemory > memoryLimit) {
      List<Event> bucket = new ArrayList<>();
      memory.read().forEach(bucket::add);
      List<Block> blocks = new ArrayList<>(blocks());
      blocks.add(write(bucket));
      manifest.write(blocks);
      memory.clear();
      progress.retainedInMemory = 0;
    }
  }

  /** The retained events at or after {@code from}, reading only the blocks that hold some. */
  List<Event> from(long from) {
    List<Event> events = new ArrayList<>();
    for (Event e : memory.read()) {
      if (e.time() >= from) {
        events.add(e);
      }
    }
    for (Block b : blocks()) {
      if (b.maxTime() >= from) {
        for (Event e : read(b)) {
          if (e.time() >= from) {
            events.add(e);
          }
        }
      }
    }
    return events;
  }

  /** The memory bucket's events, for expiry. */
  Iterable<Event> memory() {
    return memory.read();
  }

  /** Replaces the memory bucket by some of its events. */
  void keepInMemory(List<Event> kept) {
    memory.clear();
    kept.forEach(memory::add);
    progress.retainedInMemory = kept.size();
  }

  /** The blocks, oldest first. */
  List<Block> blocks() {
    List<Block> blocks = store == null ? null : manifest.read();
    return blocks == null ? List.of() : blocks;
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
    List<Block> blocks = blocks();
    List<Block> kept = new ArrayList<>();
    List<Block> gone = new ArrayList<>();
    for (Block b : blocks) {
      (expiredAt.test(b.maxTime()) ? gone : kept).add(b);
    }
    if (gone.isEmpty()) {
      return 0;
    }
    return delete(gone, kept);
  }

  /** Deletes every block of the owner, named in the manifest or not; returns how many. */
  int deleteAllBlocks() {
    return store == null ? 0 : delete(blocks(), List.of());
  }

  private int delete(List<Block> gone, List<Block> kept) {
    if (kept.isEmpty()) {
      manifest.clear();
    } else {
      manifest.write(kept);
    }
    Set<BlockName> named = new HashSet<>();
    kept.forEach(b -> named.add(b.name()));
    try {
      for (Block b : gone) {
        store.delete(b.name());
      }
      int orphans = 0;
      for (BlockName name : store.list(owner)) {
        if (!named.contains(name)) {
          store.delete(name);
          orphans++;
        }
      }
      TrendMetrics.BLOCKS_DELETED.inc(gone.size() + orphans);
      return gone.size() + orphans;
    } catch (IOException e) {
      throw new IllegalStateException(
          "could not delete expired blocks of " + owner + " in " + store.uri() + ": " + e, e);
    }
  }

  private static final ListCoder<Event> BLOCK = ListCoder.of(EventCoder.of());

  private Block write(List<Event> events) {
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (Event e : events) {
      min = Math.min(min, e.time());
      max = Math.max(max, e.time());
    }
    try {
      byte[] contents = CoderUtils.encodeToByteArray(BLOCK, events);
      BlockName name = store.write(owner, contents);
      TrendMetrics.BLOCKS_WRITTEN.inc();
      TrendMetrics.BYTES_WRITTEN.inc(contents.length);
      return new Block(name.path(), min, max, events.size());
    } catch (IOException e) {
      throw new IllegalStateException(
          "could not write a block of "
              + events.size()
              + " retained events of "
              + owner
              + " to "
              + store.uri()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private List<Event> read(Block b) {
    try {
      List<Event> events = CoderUtils.decodeFromByteArray(BLOCK, store.read(b.name()));
      TrendMetrics.BLOCKS_READ.inc();
      if (events.size() != b.events()) {
        throw new IOException(
            "holds " + events.size() + " events where the manifest says " + b.events());
      }
      return events;
    } catch (IOException e) {
      throw new IllegalStateException(
          "could not read block "
              + b.path()
              + " of "
              + owner
              + " from "
              + store.uri()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /** The coder of a manifest. */
  static final class ManifestCoder extends AtomicCoder<List<Block>> {
    private static final long serialVersionUID = 1L;
    private static final int VERSION = 1;

    @Override
    public void encode(List<Block> blocks, OutputStream stream) throws IOException {
      DataOutputStream out = new DataOutputStream(stream);
      out.writeByte(VERSION);
      out.writeInt(blocks.size());
      for (Block b : blocks) {
        out.writeUTF(b.path());
        out.writeLong(b.minTime());
        out.writeLong(b.maxTime());
        out.writeInt(b.events());
      }
      out.flush();
    }

    @Override
    public List<Block> decode(InputStream stream) throws IOException {
      DataInputStream in = new DataInputStream(stream);
      int version = in.readUnsignedByte();
      if (version != VERSION) {
        throw new CoderException(
            "retained-event manifest of version " + version + ", expected " + VERSION);
      }
      int size = in.readInt();
      List<Block> blocks = new ArrayList<>(size);
      for (int i = 0; i < size; i++) {
        blocks.add(new Block(in.readUTF(), in.readLong(), in.readLong(), in.readInt()));
      }
      return blocks;
    }
  }
}
