package dev.eventide.tiering.internal.io;

import dev.eventide.blockstore.BlockName;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A delayed purge, written to the block store as a block of its own before it is scheduled: when
 * (wall-clock milliseconds) the blocks of which owner go. A worker that takes over a job reads
 * these records and performs what the worker before it had scheduled.
 */
record PurgeRecord(long deadlineMillis, String owner, List<BlockName> blocks) {
  private static final int VERSION = 1;

  byte[] encode() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      out.writeLong(deadlineMillis);
      writeString(out, owner);
      out.writeInt(blocks.size());
      for (BlockName block : blocks) {
        writeString(out, block.path());
      }
    } catch (IOException e) {
      throw new IllegalStateException("writing to memory cannot fail", e);
    }
    return bytes.toByteArray();
  }

  /**
   * @throws IOException if the bytes are not a purge record of this version
   */
  static PurgeRecord decode(byte[] bytes) throws IOException {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      int version = in.readUnsignedByte();
      if (version != VERSION) {
        throw new IOException("a purge record of version " + version + ", not " + VERSION);
      }
      long deadline = in.readLong();
      String owner = readString(in);
      int n = in.readInt();
      if (n < 0 || n > bytes.length) {
        throw new IOException("a purge record of " + n + " blocks in " + bytes.length + " bytes");
      }
      List<BlockName> blocks = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        try {
          blocks.add(BlockName.parse(readString(in)));
        } catch (IllegalArgumentException e) {
          throw new IOException("a purge record names no block: " + e.getMessage(), e);
        }
      }
      return new PurgeRecord(deadline, owner, blocks);
    }
  }

  private static void writeString(DataOutputStream out, String s) throws IOException {
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    out.writeInt(utf8.length);
    out.write(utf8);
  }

  private static String readString(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < 0 || length > in.available()) {
      throw new IOException("a purge record string of " + length + " bytes is cut short");
    }
    return new String(in.readNBytes(length), StandardCharsets.UTF_8);
  }
}
