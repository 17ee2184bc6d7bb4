package dev.eventide.trends.beam;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.apache.beam.sdk.coders.CoderException;

/**
 * Reads what {@link ByteWriter} writes from an array in place, each read checked against the
 * array's end: bytes that end too soon, or a number longer than 64 bits, are a {@link
 * CoderException} naming what was read.
 */
final class ByteReader {
  private final byte[] bytes;
  private final String what;
  private int position;

  /**
   * @param what what the bytes hold, for errors: "an encoded event", "event batch"
   */
  ByteReader(byte[] bytes, String what) {
    this.bytes = bytes;
    this.what = what;
  }

  int remaining() {
    return bytes.length - position;
  }

  long varLong() throws CoderException {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (position >= bytes.length) {
        throw new CoderException(what + " of " + bytes.length + " bytes ends inside a number");
      }
      byte b = bytes[position++];
      v |= (long) (b & 0x7F) << shift;
      if (b >= 0) {
        return v;
      }
    }
    throw new CoderException(what + " holds a number longer than 64 bits");
  }

  /** A count or length: each of its items takes a byte at least, so it fits what is left. */
  int length(String of) throws CoderException {
    long v = varLong();
    if (v < 0 || v > remaining()) {
      throw new CoderException(
          what
              + " of "
              + bytes.length
              + " bytes: "
              + of
              + " of "
              + v
              + " with "
              + remaining()
              + " bytes left");
    }
    return (int) v;
  }

  void skip(int length) {
    position += length;
  }

  byte[] bytes(int length) {
    byte[] b = Arrays.copyOfRange(bytes, position, position + length);
    position += length;
    return b;
  }

  String utf8(int length) {
    String s = new String(bytes, position, length, StandardCharsets.UTF_8);
    position += length;
    return s;
  }
}
