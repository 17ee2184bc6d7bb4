package dev.eventide.blockstore;

import java.io.IOException;

/**
 * A block that a manifest names but the store does not have.
 *
 * <pre>{@code
 * try {
 *   byte[] contents = store.read(name);
 * } catch (NoSuchBlockException e) {
 *   // purged, or never written to this store: the message names the store and the block
 * }
 * }</pre>
 */
public final class NoSuchBlockException extends IOException {
  private static final long serialVersionUID = 1L;

  NoSuchBlockException(String store, BlockName name) {
    super("block " + name + " is missing from " + store);
  }
}
