package dev.eventide.trends.beam;

import dev.eventide.blockstore.BlockName;
import dev.eventide.blockstore.BlockStore;
import dev.eventide.blockstore.ForwardingBlockStore;
import dev.eventide.blockstore.internal.bag.BlockInfo;
import dev.eventide.blockstore.internal.bag.ElementCodec;
import dev.eventide.trends.Event;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.util.CoderUtils;

/**
 * What {@link RetainedEvents} needs to keep events in a tiered bag: their codec, the coder of the
 * bag's manifest entries and a store that counts its blocks in {@link TrendMetrics}.
 */
final class RetainedBlocks {
  private RetainedBlocks() {}

  /** Events in {@link EventCoder}'s form. */
  static final ElementCodec<Event> EVENTS =
      new ElementCodec<>() {
        @Override
        public byte[] encode(Event event) throws IOException {
          return CoderUtils.encodeToByteArray(EventCoder.of(), event);
        }

        @Override
        public Event decode(byte[] encoded) throws IOException {
          return CoderUtils.decodeFromByteArray(EventCoder.of(), encoded);
        }

        @Override
        public String toString() {
          return EventCoder.of().toString();
        }
      };

  /** The store's blocks written, read and deleted, and the bytes written, as metrics. */
  static BlockStore counted(BlockStore store) {
    return new ForwardingBlockStore(store) {
      @Override
      public BlockName write(String owner, byte[] contents) throws IOException {
        BlockName name = super.write(owner, contents);
        TrendMetrics.BLOCKS_WRITTEN.inc();
        TrendMetrics.BYTES_WRITTEN.inc(contents.length);
        return name;
      }

      @Override
      public byte[] read(BlockName name) throws IOException {
        byte[] contents = super.read(name);
        TrendMetrics.BLOCKS_READ.inc();
        return contents;
      }

      @Override
      public void delete(BlockName name) throws IOException {
        super.delete(name);
        TrendMetrics.BLOCKS_DELETED.inc();
      }
    };
  }

  /** A manifest entry: the block's path, its events' time range and their number. */
  static final class InfoCoder extends AtomicCoder<BlockInfo> {
    private static final long serialVersionUID = 1L;
    private static final InfoCoder INSTANCE = new InfoCoder();

    static InfoCoder of() {
      return INSTANCE;
    }

    @Override
    public void encode(BlockInfo block, OutputStream stream) throws IOException {
      DataOutputStream out = new DataOutputStream(stream);
      out.writeUTF(block.name().path());
      out.writeLong(block.minTime());
      out.writeLong(block.maxTime());
      out.writeLong(block.elements());
      out.flush();
    }

    @Override
    public BlockInfo decode(InputStream stream) throws IOException {
      DataInputStream in = new DataInputStream(stream);
      try {
        return new BlockInfo(
            BlockName.parse(in.readUTF()), in.readLong(), in.readLong(), in.readLong());
      } catch (IllegalArgumentException e) {
        throw new org.apache.beam.sdk.coders.CoderException(
            "a retained-event manifest entry that is not one: " + e.getMessage());
      }
    }
  }
}
