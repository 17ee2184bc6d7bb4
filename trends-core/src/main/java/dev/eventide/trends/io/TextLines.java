package dev.eventide.trends.io;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The lines of a UTF-8 text, each decoded on its own, so that a byte sequence that is not UTF-8
 * spoils one line (numbered, with its column) rather than the whole read. A line ends at {@code \n}
 * or {@code \r\n}; a lone {@code \r} is part of its line, so line numbers are those of {@code wc
 * -l} and of editors. A UTF-8 byte order mark at the start is skipped; a file that starts with a
 * UTF-16 or UTF-32 byte order mark is refused when it is opened ({@link NotUtf8Exception}). A line
 * longer than {@link #MAX_LINE_BYTES} is a bad line (its text is cut), so one endless line cannot
 * exhaust memory.
 *
 * <pre>{@code
 * try (TextLines lines = TextLines.open(Files.newInputStream(Path.of("events.jsonl")))) {
 *   for (TextLines.Line line = lines.next(); line != null; line = lines.next()) {
 *     if (!line.isValid()) {
 *       System.err.println("line " + line.number() + ": " + line.problem());
 *     }
 *   }
 * }
 * }</pre>
 */
public final class TextLines implements AutoCloseable {
  /** The longest line read whole, in bytes: 8 MiB. */
  public static final int MAX_LINE_BYTES = 8 << 20;

  /**
   * One line: its number (from 1), its text and, if it is not valid, what is wrong (then {@code
   * text} holds what could be decoded, invalid bytes as U+FFFD).
   */
  public record Line(long number, String text, String problem) {
    public boolean isValid() {
      return problem == null;
    }
  }

  /** A file that is not UTF-8 at all (it starts with another encoding's byte order mark). */
  public static final class NotUtf8Exception extends IOException {
    private static final long serialVersionUID = 1L;

    NotUtf8Exception(String message) {
      super(message);
    }
  }

  private final InputStream in;
  private final int maxLineBytes;
  private final byte[] buffer = new byte[64 * 1024];
  private int position;
  private int limit;
  private long number;
  private byte[] line = new byte[256];
  private final CharsetDecoder decoder =
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT);

  private TextLines(InputStream in, int maxLineBytes) {
    this.in = in;
    this.maxLineBytes = maxLineBytes;
  }

  /**
   * The lines of a stream, which {@link #close()} closes. Reads the first bytes at once, for a byte
   * order mark.
   *
   * @throws NotUtf8Exception if the text starts with a UTF-16 or UTF-32 byte order mark
   */
  public static TextLines open(InputStream in) throws IOException {
    return open(in, MAX_LINE_BYTES);
  }

  static TextLines open(InputStream in, int maxLineBytes) throws IOException {
    TextLines lines = new TextLines(in, maxLineBytes);
    try {
      lines.skipByteOrderMark();
    } catch (IOException e) {
      in.close();
      throw e;
    }
    return lines;
  }

  /** The next line, or null at the end of the text. */
  public Line next() throws IOException {
    int length = 0;
    boolean dropped = false;
    boolean any = false;
    while (true) {
      if (position == limit && !fill()) {
        if (!any) {
          return null;
        }
        break;
      }
      any = true;
      int newline = indexOfNewline();
      int end = newline < 0 ? limit : newline;
      int take = Math.min(end - position, Math.max(0, maxLineBytes + 1 - length));
      if (length + take > line.length) {
        line =
            Arrays.copyOf(
                line, Math.max(length + take, Math.min(2 * line.length, maxLineBytes + 1)));
      }
      System.arraycopy(buffer, position, line, length, take);
      length += take;
      dropped |= take < end - position;
      position = newline < 0 ? limit : newline + 1;
      if (newline >= 0) {
        break;
      }
    }
    number++;
    // One byte beyond the limit is kept, so that a line of the limit's length ending in CRLF fits.
    if (!dropped && length > 0 && line[length - 1] == '\r') {
      length--;
    }
    boolean tooLong = dropped || length > maxLineBytes;
    return decode(Math.min(length, maxLineBytes), tooLong);
  }

  private Line decode(int length, boolean tooLong) {
    if (tooLong) {
      // The cut may split a character: the text is only for the dead letter.
      return new Line(number, lossy(length), "longer than " + maxLineBytes + " bytes");
    }
    try {
      return new Line(
          number, decoder.reset().decode(ByteBuffer.wrap(line, 0, length)).toString(), null);
    } catch (CharacterCodingException e) {
      return new Line(number, lossy(length), notUtf8(length));
    }
  }

  /** Says where the first invalid byte is: its column counts the characters before it, from 1. */
  private String notUtf8(int length) {
    CharBuffer chars = CharBuffer.allocate(length);
    ByteBuffer bytes = ByteBuffer.wrap(line, 0, length);
    decoder.reset().decode(bytes, chars, true);
    int at = bytes.position();
    return String.format(
        "not valid UTF-8 (byte 0x%02X at column %d)", line[at] & 0xFF, chars.position() + 1);
  }

  private String lossy(int length) {
    return new String(line, 0, length, StandardCharsets.UTF_8);
  }

  private int indexOfNewline() {
    for (int i = position; i < limit; i++) {
      if (buffer[i] == '\n') {
        return i;
      }
    }
    return -1;
  }

  private boolean fill() throws IOException {
    int read = in.read(buffer, 0, buffer.length);
    if (read <= 0) {
      // A stream may return 0 only for an empty buffer; treat anything else as the end.
      position = limit = 0;
      return false;
    }
    position = 0;
    limit = read;
    return true;
  }

  private void skipByteOrderMark() throws IOException {
    while (limit - position < 4 && fillMore()) {}
    int available = limit - position;
    if (startsWith(available, 0x00, 0x00, 0xFE, 0xFF)
        || startsWith(available, 0xFF, 0xFE, 0x00, 0x00)) {
      throw new NotUtf8Exception(
          "is UTF-32 (it starts with a UTF-32 byte order mark); Eventide reads UTF-8: convert it,"
              + " e.g. iconv -f UTF-32 -t UTF-8");
    }
    if (startsWith(available, 0xFE, 0xFF) || startsWith(available, 0xFF, 0xFE)) {
      throw new NotUtf8Exception(
          "is UTF-16 (it starts with a UTF-16 byte order mark); Eventide reads UTF-8: convert it,"
              + " e.g. iconv -f UTF-16 -t UTF-8");
    }
    if (startsWith(available, 0xEF, 0xBB, 0xBF)) {
      position += 3;
    }
  }

  /** Appends to the buffer what the stream gives, for the byte order mark's few bytes. */
  private boolean fillMore() throws IOException {
    int read = in.read(buffer, limit, buffer.length - limit);
    if (read <= 0) {
      return false;
    }
    limit += read;
    return true;
  }

  private boolean startsWith(int available, int... bytes) {
    if (available < bytes.length) {
      return false;
    }
    for (int i = 0; i < bytes.length; i++) {
      if ((buffer[position + i] & 0xFF) != bytes[i]) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
