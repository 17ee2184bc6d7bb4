package dev.eventide.tiering.teststore;

import dev.eventide.blockstore.*;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A store that fails a share of its operations and delays others, seeded, and counts what it did
 * (model: Flink CEP's counting {@code TestSharedBuffer}). A failed write may or may not have stored
 * the block, as on a real device: the fault hits before or after the write at random.
 */
public final class FaultyBlockStore extends ForwardingBlockStore {
  private final Random random;
  private final double failureRate;
  private final int maxDelayMillis;
  public final AtomicInteger failures = new AtomicInteger();
  public final AtomicInteger operations = new AtomicInteger();
  private final Map<String, AtomicInteger> listsByOwner = new ConcurrentHashMap<>();

  public FaultyBlockStore(BlockStore delegate, long seed, double failureRate, int maxDelayMillis) {
    super(delegate);
    this.random = new Random(seed);
    this.failureRate = failureRate;
    this.maxDelayMillis = maxDelayMillis;
  }

  private synchronized boolean fail() {
    operations.incrementAndGet();
    if (maxDelayMillis > 0) {
      try {
        Thread.sleep(random.nextInt(maxDelayMillis + 1));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (random.nextDouble() < failureRate) {
      failures.incrementAndGet();
      return true;
    }
    return false;
  }

  private synchronized boolean coin() {
    return random.nextBoolean();
  }

  @Override
  public BlockName write(String owner, byte[] contents) throws IOException {
    if (fail()) {
      if (coin()) {
        super.write(owner, contents); // stored, but the caller never hears of it
      }
      throw new IOException("injected write failure");
    }
    return super.write(owner, contents);
  }

  @Override
  public byte[] read(BlockName name) throws IOException {
    if (fail()) {
      throw new IOException("injected read failure of " + name);
    }
    return super.read(name);
  }

  @Override
  public void delete(BlockName name) throws IOException {
    if (fail()) {
      throw new IOException("injected delete failure of " + name);
    }
    super.delete(name);
  }

  /** How many times the blocks of the owner were listed. */
  public int lists(String owner) {
    AtomicInteger lists = listsByOwner.get(owner);
    return lists == null ? 0 : lists.get();
  }

  @Override
  public List<BlockName> list(String owner) throws IOException {
    listsByOwner.computeIfAbsent(owner, o -> new AtomicInteger()).incrementAndGet();
    if (fail()) {
      throw new IOException("injected list failure");
    }
    return super.list(owner);
  }

  @Override
  public String uri() {
    return "faulty:" + super.uri();
  }
}
