package dev.eventide.blockstore;

import java.io.IOException;
import java.util.List;

/**
 * Immutable, checksummed blocks of bytes named by hash: where {@code TieredWindow} spills the state
 * of past windows (the p-buckets of the Aion paper) and {@code TrendAggregate} retains events.
 *
 * <pre>{@code
 * try (BlockStore store = BlockStores.open("file:///var/eventide/blocks")) {
 *   BlockName name = store.write("sensor-7/2026-12-05T10:00", bytes);
 *   byte[] back = store.read(name);               // verified against its checksum
 *   for (BlockName old : store.list("sensor-7/2026-12-05T10:00")) {
 *     store.delete(old);
 *   }
 * }
 * }</pre>
 *
 * <p>A block is durable when {@link #write} returns, so a manifest may name it from then on; blocks
 * that no manifest names are collected through {@link #list} and {@link #delete}. Implementations
 * are thread-safe.
 *
 * <p>Choose one by URI with {@link BlockStores#open(String)}: {@code file:///dir} ({@link
 * LocalFileBlockStore}, the default), {@code gs://bucket/prefix} ({@link GcsBlockStore}) or {@code
 * memory:name} ({@link InMemoryBlockStore}).
 */
public interface BlockStore extends AutoCloseable {

  /**
   * Stores the contents as a block of the owner and returns its name once the block is durable.
   * Writing the same contents for the same owner again returns the same name and stores nothing
   * new.
   *
   * @throws IOException saying which block and store failed, and why (a full disk included)
   */
  BlockName write(String owner, byte[] contents) throws IOException;

  /**
   * Returns the contents of the block, verified against its checksum and name.
   *
   * @throws NoSuchBlockException if the store does not have it
   * @throws CorruptBlockException if its bytes were damaged
   */
  byte[] read(BlockName name) throws IOException;

  /** Deletes the block; deleting a block that does not exist is not an error. */
  void delete(BlockName name) throws IOException;

  /** The blocks stored for the owner, in no particular order. */
  List<BlockName> list(String owner) throws IOException;

  /** The URI this store was opened with, for messages. */
  String uri();

  @Override
  default void close() throws IOException {}
}
