package dev.eventide.trends.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TextLinesTest {
  private static List<TextLines.Line> read(byte[] bytes, int maxLineBytes) throws IOException {
    List<TextLines.Line> lines = new ArrayList<>();
    try (TextLines in = TextLines.open(new ByteArrayInputStream(bytes), maxLineBytes)) {
      for (TextLines.Line l = in.next(); l != null; l = in.next()) {
        lines.add(l);
      }
    }
    return lines;
  }

  private static List<TextLines.Line> read(String text) throws IOException {
    return read(text.getBytes(StandardCharsets.UTF_8), TextLines.MAX_LINE_BYTES);
  }

  private static TextLines.Line valid(long number, String text) {
    return new TextLines.Line(number, text, null);
  }

  @Test
  void linesEndAtLineFeedOrCrLfAndALoneCrStaysInItsLine() throws IOException {
    assertEquals(
        List.of(valid(1, "a"), valid(2, "b\rc"), valid(3, ""), valid(4, "d")),
        read("a\r\nb\rc\n\nd"));
    assertEquals(List.of(valid(1, "a")), read("a\n"));
    assertEquals(List.of(), read(""));
  }

  @Test
  void aUtf8ByteOrderMarkIsSkippedAndUtf16Or32IsRefusedAtOnce() throws IOException {
    assertEquals(
        List.of(valid(1, "é"), valid(2, "\uFEFFx")),
        read("\uFEFFé\n\uFEFFx".getBytes(StandardCharsets.UTF_8), 100));
    for (String charset : new String[] {"UTF-16", "UTF-16LE", "UTF-32BE", "UTF-32LE"}) {
      byte[] bytes =
          ("\uFEFF" + "{\"type\":\"A\"}\n").getBytes(java.nio.charset.Charset.forName(charset));
      TextLines.NotUtf8Exception e =
          assertThrows(
              TextLines.NotUtf8Exception.class,
              () -> TextLines.open(new ByteArrayInputStream(bytes)),
              charset);
      assertEquals(true, e.getMessage().startsWith("is UTF-" + charset.substring(4, 6)), charset);
    }
  }

  @Test
  void invalidUtf8SpoilsOnlyItsLineAndSaysWhere() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    bytes.writeBytes("ok\n".getBytes(StandardCharsets.UTF_8));
    bytes.writeBytes("ab€".getBytes(StandardCharsets.UTF_8));
    bytes.write(0xC3); // a lead byte, then a character that cannot continue it
    bytes.writeBytes("(\n".getBytes(StandardCharsets.UTF_8));
    bytes.write(0xFF);
    bytes.writeBytes("\nlast\n".getBytes(StandardCharsets.UTF_8));
    List<TextLines.Line> lines = read(bytes.toByteArray(), 100);
    assertEquals(4, lines.size());
    assertEquals(valid(1, "ok"), lines.get(0));
    assertEquals("not valid UTF-8 (byte 0xC3 at column 4)", lines.get(1).problem());
    assertEquals("ab€\uFFFD(", lines.get(1).text());
    assertEquals("not valid UTF-8 (byte 0xFF at column 1)", lines.get(2).problem());
    assertEquals(valid(4, "last"), lines.get(3));
  }

  @Test
  void aLineLongerThanTheLimitIsBadAndTheNextLinesAreRead() throws IOException {
    List<TextLines.Line> lines = read("0123456789\nabc\n".getBytes(StandardCharsets.UTF_8), 4);
    assertEquals(new TextLines.Line(1, "0123", "longer than 4 bytes"), lines.get(0));
    assertEquals(List.of(valid(2, "abc")), lines.subList(1, 2));
    assertEquals(List.of(valid(1, "abcd")), read("abcd\r\n".getBytes(StandardCharsets.UTF_8), 4));
  }

  /** Lines come out the same whatever sizes the stream's reads return. */
  @Test
  void readsSplitAnywhereGiveTheSameLines() throws IOException {
    Random random = new Random(42);
    String text = "\uFEFF{\"a\":1}\r\n\n€€\rx\nlast";
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    List<TextLines.Line> whole = read(bytes, 100);
    for (int trial = 0; trial < 200; trial++) {
      InputStream trickle =
          new ByteArrayInputStream(bytes) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
              return super.read(b, off, Math.min(len, 1 + random.nextInt(3)));
            }
          };
      List<TextLines.Line> lines = new ArrayList<>();
      try (TextLines in = TextLines.open(trickle, 100)) {
        for (TextLines.Line l = in.next(); l != null; l = in.next()) {
          lines.add(l);
        }
      }
      assertEquals(whole, lines);
    }
    assertEquals(
        List.of(valid(1, "{\"a\":1}"), valid(2, ""), valid(3, "€€\rx"), valid(4, "last")), whole);
  }
}
