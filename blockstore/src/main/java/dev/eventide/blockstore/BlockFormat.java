package dev.eventide.blockstore;

import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.zip.CRC32C;

/**
 * The bytes of a stored block: magic {@code EVB1}, the length and the CRC32C of the contents, then
 * the contents. Reading checks all three and that the contents hash to the block's name.
 */
final class BlockFormat {
  private static final int MAGIC = 0x45564231; // "EVB1"
  static final int HEADER = 12;

  private BlockFormat() {}

  static byte[] encode(byte[] contents) {
    CRC32C crc = new CRC32C();
    crc.update(contents);
    return ByteBuffer.allocate(HEADER + contents.length)
        .putInt(MAGIC)
        .putInt(contents.length)
        .putInt((int) crc.getValue())
        .put(contents)
        .array();
  }

  /** The contents of a stored block, verified. */
  static byte[] decode(String store, BlockName name, byte[] stored) throws CorruptBlockException {
    if (stored.length < HEADER) {
      throw new CorruptBlockException(store, name, "only " + stored.length + " bytes");
    }
    ByteBuffer in = ByteBuffer.wrap(stored);
    if (in.getInt() != MAGIC) {
      throw new CorruptBlockException(store, name, "not an Eventide block (bad magic)");
    }
    int length = in.getInt();
    if (length != stored.length - HEADER) {
      throw new CorruptBlockException(
          store, name, "header says " + length + " bytes, found " + (stored.length - HEADER));
    }
    int expected = in.getInt();
    byte[] contents = new byte[length];
    in.get(contents);
    CRC32C crc = new CRC32C();
    crc.update(contents);
    if ((int) crc.getValue() != expected) {
      throw new CorruptBlockException(store, name, "CRC32C mismatch");
    }
    if (!MessageDigest.isEqual(
        BlockName.sha256(contents), HexFormat.of().parseHex(name.content()))) {
      throw new CorruptBlockException(store, name, "contents do not hash to the block's name");
    }
    return contents;
  }
}
