package dev.eventide.blockstore;

import java.io.IOException;

/** A block that a manifest names but the store does not have. */
public final class NoSuchBlockException extends IOException {
  private static final long serialVersionUID = 1L;

  NoSuchBlockException(String store, BlockName name) {
    super("block " + name + " is missing from " + store);
  }
}
