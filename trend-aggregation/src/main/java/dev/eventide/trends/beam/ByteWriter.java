package dev.eventide.trends.beam;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A growing byte array written with Beam's variable-length integers ({@code VarInt}) and strings as
 * {@code StringUtf8Coder} writes them, then handed to a stream in one write: the coders' hot paths
 * without a stream call per byte.
 */
final class ByteWriter {
  private byte[] buffer;
  private int size;

  ByteWriter(int capacity) {
    buffer = new byte[capacity];
  }

  int size() {
    return size;
  }

  /** {@code VarInt.encode(long)}: 7 bits a byte, low first, a negative value in 10 bytes. */
  void varLong(long v) {
    ensure(10);
    while ((v & ~0x7FL) != 0) {
      buffer[size++] = (byte) ((v & 0x7F) | 0x80);
      v >>>= 7;
    }
    buffer[size++] = (byte) v;
  }

  /** {@code VarInt.encode(int)}: the int's 32 bits unsigned, a negative value in 5 bytes. */
  void varInt(int v) {
    varLong(v & 0xFFFFFFFFL);
  }

  /** {@code StringUtf8Coder}'s form: the UTF-8 length, then the bytes. */
  void utf8(String s) {
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    varInt(utf8.length);
    bytes(utf8);
  }

  void bytes(byte[] b) {
    ensure(b.length);
    System.arraycopy(b, 0, buffer, size, b.length);
    size += b.length;
  }

  void writeTo(OutputStream out) throws IOException {
    out.write(buffer, 0, size);
  }

  private void ensure(int more) {
    if (size + more > buffer.length) {
      buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, size + more));
    }
  }
}
