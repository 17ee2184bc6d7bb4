package dev.eventide.blockstore.internal.bag;

import java.io.IOException;

/**
 * How a {@link TieredBag} turns its elements into bytes and back: each element on its own, so that
 * an element is encoded once, when it is added, whether it stays in memory or goes to a block. A
 * Beam adapter implements it with the element's {@code Coder}; this module needs no Beam.
 */
public interface ElementCodec<T> {

  byte[] encode(T element) throws IOException;

  T decode(byte[] encoded) throws IOException;
}
