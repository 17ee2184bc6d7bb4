package dev.eventide.tiering.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Blocks on the heap, for tests and small jobs; {@code memory:name} in a URI. */
public final class InMemoryBlockStore implements BlockStore {
  private final String uri;
  private final Map<BlockName, byte[]> blocks = new ConcurrentHashMap<>();

  public InMemoryBlockStore(String name) {
    this.uri = "memory:" + name;
  }

  @Override
  public BlockName write(String owner, byte[] contents) {
    BlockName name = BlockName.of(owner, contents);
    blocks.computeIfAbsent(name, n -> BlockFormat.encode(contents));
    return name;
  }

  @Override
  public byte[] read(BlockName name) throws java.io.IOException {
    byte[] stored = blocks.get(name);
    if (stored == null) {
      throw new NoSuchBlockException(uri, name);
    }
    return BlockFormat.decode(uri, name, stored);
  }

  @Override
  public void delete(BlockName name) {
    blocks.remove(name);
  }

  @Override
  public List<BlockName> list(String owner) {
    String hash = BlockName.ownerHash(owner);
    List<BlockName> names = new ArrayList<>();
    for (BlockName name : blocks.keySet()) {
      if (name.owner().equals(hash)) {
        names.add(name);
      }
    }
    return names;
  }

  @Override
  public String uri() {
    return uri;
  }

  /** The stored bytes of a block, which tests may damage in place. */
  byte[] storedBytes(BlockName name) {
    return blocks.get(name);
  }
}
