package dev.eventide.tiering.teststore;

import com.google.common.jimfs.Configuration;
import com.google.common.jimfs.Jimfs;
import dev.eventide.blockstore.*;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Damaged stores for pipeline tests, by URI, shared by every worker thread of the test JVM: {@code
 * test:NAME?fail=0.2&delay=3&seed=7} (a {@link FaultyBlockStore} over memory), {@code
 * test:NAME?damage=true} (every block damaged once written) and {@code test:NAME?diskBytes=65536}
 * (a local store on a disk of that size) and {@code test:NAME?crashAfterDelete=true} (a store whose
 * first delete of a window's block deletes it, then fails, as a worker that dies right after it).
 */
public final class TestStoreProvider implements BlockStoreProvider {
  private static final Map<String, BlockStore> STORES = new ConcurrentHashMap<>();

  @Override
  public String scheme() {
    return "test";
  }

  /** The store a URI names, once opened. */
  public static BlockStore opened(String uri) {
    return STORES.get(URI.create(uri).getSchemeSpecificPart());
  }

  @Override
  public BlockStore open(URI uri) throws IOException {
    String spec = uri.getSchemeSpecificPart();
    try {
      return STORES.computeIfAbsent(spec, s -> create(s));
    } catch (IllegalStateException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  private static BlockStore create(String spec) {
    String[] parts = spec.split("\\?", 2);
    Map<String, String> params = new HashMap<>();
    if (parts.length == 2) {
      for (String pair : parts[1].split("&")) {
        String[] kv = pair.split("=", 2);
        params.put(kv[0], kv[1]);
      }
    }
    if (params.containsKey("diskBytes")) {
      var disk =
          Jimfs.newFileSystem(
              Configuration.unix().toBuilder()
                  .setMaxSize(Long.parseLong(params.get("diskBytes")))
                  .setBlockSize(1024)
                  .build());
      try {
        return new LocalFileBlockStore(disk.getPath("/blocks"));
      } catch (IOException e) {
        throw new IllegalStateException(e.getMessage(), e);
      }
    }
    if (Boolean.parseBoolean(params.get("damage"))) {
      try {
        return new DamagingStore(Jimfs.newFileSystem(Configuration.unix()).getPath("/" + parts[0]));
      } catch (IOException e) {
        throw new IllegalStateException(e.getMessage(), e);
      }
    }
    InMemoryBlockStore memory = new InMemoryBlockStore(parts[0]);
    if (Boolean.parseBoolean(params.get("crashAfterDelete"))) {
      return new CrashAfterDeleteStore(memory);
    }
    return new FaultyBlockStore(
        memory,
        Long.parseLong(params.getOrDefault("seed", "1")),
        Double.parseDouble(params.getOrDefault("fail", "0")),
        Integer.parseInt(params.getOrDefault("delay", "0")));
  }

  /** Flips a byte of every block it writes to its files, as a failing disk might. */
  private static final class DamagingStore extends ForwardingBlockStore {
    private final Path root;

    DamagingStore(Path root) throws IOException {
      super(new LocalFileBlockStore(root));
      this.root = root;
    }

    @Override
    public BlockName write(String owner, byte[] contents) throws IOException {
      BlockName name = super.write(owner, contents);
      Path file = root.resolve(name.path());
      byte[] stored = Files.readAllBytes(file);
      stored[stored.length - 1] ^= 0x5a;
      Files.write(file, stored);
      return name;
    }

    @Override
    public String uri() {
      return "test:" + super.uri();
    }
  }

  /**
   * Fails once, right after its first delete of a window's block (not a purge record's): the block
   * is gone and the caller fails, as when a worker dies right after a purge deleted it.
   */
  public static final class CrashAfterDeleteStore extends ForwardingBlockStore {
    private final AtomicBoolean crashed = new AtomicBoolean();
    private final Set<BlockName> held = ConcurrentHashMap.newKeySet();
    // The owner hashes of purge records, which a block name carries instead of the owner.
    private final Set<String> recordOwners = ConcurrentHashMap.newKeySet();

    CrashAfterDeleteStore(InMemoryBlockStore delegate) {
      super(delegate);
    }

    /** Whether it has failed its caller. */
    public boolean crashed() {
      return crashed.get();
    }

    /** The blocks it holds, of every owner. */
    public Set<BlockName> held() {
      return Set.copyOf(held);
    }

    @Override
    public BlockName write(String owner, byte[] contents) throws IOException {
      BlockName name = super.write(owner, contents);
      held.add(name);
      if (owner.startsWith("purges of ")) {
        recordOwners.add(name.owner());
      }
      return name;
    }

    @Override
    public void delete(BlockName name) throws IOException {
      super.delete(name);
      held.remove(name);
      if (!recordOwners.contains(name.owner()) && crashed.compareAndSet(false, true)) {
        throw new IOException("injected: the worker died right after deleting " + name);
      }
    }

    @Override
    public String uri() {
      return "test:" + super.uri();
    }
  }
}
