package dev.eventide.blockstore;

import java.io.IOException;

/**
 * A block whose bytes do not match its checksum or its name: it was damaged in the store.
 *
 * <pre>{@code
 * try {
 *   byte[] contents = store.read(name);
 * } catch (CorruptBlockException e) {
 *   // the stored bytes fail their checksum: the message names the store and the block
 * }
 * }</pre>
 */
public final class CorruptBlockException extends IOException {
  private static final long serialVersionUID = 1L;

  CorruptBlockException(String store, BlockName name, String problem) {
    super("block " + name + " in " + store + " is corrupt: " + problem);
  }
}
