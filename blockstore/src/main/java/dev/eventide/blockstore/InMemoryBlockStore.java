package dev.eventide.blockstore;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Blocks on the heap, for tests and small jobs; {@code memory:name} in a URI.
 *
 * <pre>{@code
 * BlockStore store = BlockStores.open("memory:test-run");   // one per name in this JVM
 * BlockStore own = new InMemoryBlockStore("scratch");       // or one of your own
 * }</pre>
 */
public final class InMemoryBlockStore implements BlockStore {
  private final String uri;
  // By owner hash, so that listing an owner's blocks does not scan every block of the store.
  private final Map<String, Map<BlockName, byte[]>> blocks = new ConcurrentHashMap<>();

  public InMemoryBlockStore(String name) {
    this.uri = "memory:" + name;
  }

  @Override
  public BlockName write(String owner, byte[] contents) {
    BlockName name = BlockName.of(owner, contents);
    byte[] encoded = BlockFormat.encode(contents);
    // In the owner's entry, atomically: a delete that empties the owner removes its map under the
    // same entry, so the write cannot land in a map that is no longer the store's.
    blocks.compute(
        name.owner(),
        (o, named) -> {
          Map<BlockName, byte[]> into = named == null ? new ConcurrentHashMap<>() : named;
          into.putIfAbsent(name, encoded);
          return into;
        });
    return name;
  }

  @Override
  public byte[] read(BlockName name) throws java.io.IOException {
    byte[] stored = storedBytes(name);
    if (stored == null) {
      throw new NoSuchBlockException(uri, name);
    }
    return BlockFormat.decode(uri, name, stored);
  }

  @Override
  public void delete(BlockName name) {
    blocks.computeIfPresent(
        name.owner(),
        (owner, named) -> {
          named.remove(name);
          return named.isEmpty() ? null : named;
        });
  }

  @Override
  public List<BlockName> list(String owner) {
    Map<BlockName, byte[]> named = blocks.get(BlockName.ownerHash(owner));
    return named == null ? new ArrayList<>() : new ArrayList<>(named.keySet());
  }

  @Override
  public String uri() {
    return uri;
  }

  /** Owners' entries plus their blocks: what this module's tests see go back to 0. */
  long entriesHeld() {
    long entries = 0;
    for (Map<BlockName, byte[]> named : blocks.values()) {
      entries += 1 + named.size();
    }
    return entries;
  }

  /** The stored bytes of a block, or null; this module's tests damage them in place. */
  byte[] storedBytes(BlockName name) {
    Map<BlockName, byte[]> named = blocks.get(name.owner());
    return named == null ? null : named.get(name);
  }
}
