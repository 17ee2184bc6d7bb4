package dev.eventide.pipelines.bench.tiering;

import dev.eventide.blockstore.BlockName;
import dev.eventide.blockstore.BlockStore;
import dev.eventide.blockstore.BlockStoreProvider;
import dev.eventide.blockstore.BlockStores;
import dev.eventide.blockstore.ForwardingBlockStore;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;

/**
 * A store that answers like a remote one, for the tiering benchmark: {@code delayed:MILLIS:URI} is
 * the store at {@code URI} with every read and write taking {@code MILLIS} longer (an object store
 * such as GCS takes tens of milliseconds per request), so that the value of pre-staging shows on a
 * machine whose local disk is served from the page cache.
 */
public final class DelayedStoreProvider implements BlockStoreProvider {
  @Override
  public String scheme() {
    return "delayed";
  }

  @Override
  public void check(URI uri) {
    parse(uri);
  }

  @Override
  public BlockStore open(URI uri) throws IOException {
    String[] parts = parse(uri);
    return new Delayed(Long.parseLong(parts[0]), BlockStores.open(parts[1]), uri.toString());
  }

  private static String[] parse(URI uri) {
    String[] parts = uri.getSchemeSpecificPart().split(":", 2);
    if (parts.length != 2 || !parts[0].matches("[0-9]+")) {
      throw new IllegalArgumentException(
          "a delayed store is delayed:MILLIS:URI, such as delayed:20:file:///tmp/blocks, but was "
              + uri);
    }
    BlockStores.checkUri(parts[1]);
    return parts;
  }

  /** Pauses before each write and read, as a store across a network would. */
  private static final class Delayed extends ForwardingBlockStore {
    private final long millis;
    private final String uri;

    Delayed(long millis, BlockStore delegate, String uri) {
      super(delegate);
      this.millis = millis;
      this.uri = uri;
    }

    private void pause() throws IOException {
      try {
        Thread.sleep(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted during a simulated store delay");
      }
    }

    @Override
    public BlockName write(String owner, byte[] contents) throws IOException {
      pause();
      return super.write(owner, contents);
    }

    @Override
    public byte[] read(BlockName name) throws IOException {
      pause();
      return super.read(name);
    }

    @Override
    public String uri() {
      return uri;
    }
  }
}
