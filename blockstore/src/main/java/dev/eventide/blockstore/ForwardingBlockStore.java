package dev.eventide.blockstore;

import java.io.IOException;
import java.util.List;
import java.util.Objects;

/**
 * A block store that forwards every call to another, for decorators: extend it and override only
 * what the decorator changes (count, delay or fail calls, watch them). Closing it closes the store
 * it forwards to, unless a subclass says otherwise.
 *
 * <pre>{@code
 * AtomicLong reads = new AtomicLong();
 * BlockStore counted = new ForwardingBlockStore(BlockStores.open("file:///tmp/blocks")) {
 *   @Override
 *   public byte[] read(BlockName name) throws IOException {
 *     reads.incrementAndGet();
 *     return super.read(name);
 *   }
 * };
 * }</pre>
 */
public abstract class ForwardingBlockStore implements BlockStore {
  private final BlockStore delegate;

  protected ForwardingBlockStore(BlockStore delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** The store this one forwards to. */
  protected final BlockStore delegate() {
    return delegate;
  }

  @Override
  public BlockName write(String owner, byte[] contents) throws IOException {
    return delegate.write(owner, contents);
  }

  @Override
  public byte[] read(BlockName name) throws IOException {
    return delegate.read(name);
  }

  @Override
  public void delete(BlockName name) throws IOException {
    delegate.delete(name);
  }

  @Override
  public List<BlockName> list(String owner) throws IOException {
    return delegate.list(owner);
  }

  @Override
  public String uri() {
    return delegate.uri();
  }

  @Override
  public void close() throws IOException {
    delegate.close();
  }
}
