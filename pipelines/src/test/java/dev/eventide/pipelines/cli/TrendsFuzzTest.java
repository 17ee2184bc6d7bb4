package dev.eventide.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.anyOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.matchesPattern;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.eventide.testing.differential.Seeds;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Seeded fuzzing of {@code eventide trends}: malformed event lines and query files, made by
 * mutating valid ones, never give a stack trace or a hang; every non-blank event line is an event
 * or a dead letter; every bad query file is exit code 2 with its place.
 */
class TrendsFuzzTest {
  private static final String QUERIES =
      """
      QUERY pool_trips
      RETURN COUNT(*)
      PATTERN SEQ(Request, Travel+)
      WHERE [driver] AND Travel.speed < 10
      GROUPBY district
      WITHIN 30 ms SLIDE 10 ms

      QUERY slowing_down
      RETURN AVG(Travel.speed)
      PATTERN SEQ(Pickup, Travel+, NOT Cancel)
      WHERE [driver] AND Travel.speed > NEXT(Travel).speed
      GROUPBY district
      WITHIN 30 ms SLIDE 10 ms

      QUERY travel_events
      RETURN COUNT(Travel)
      PATTERN SEQ(OR(Request, Pickup), Travel+, Dropoff)
      WHERE [driver]
      GROUPBY district
      WITHIN 30 ms
      """;

  private static final String[] TYPES = {"Request", "Pickup", "Travel", "Dropoff", "Cancel"};

  /**
   * Pieces a mutation inserts: JSON and query syntax, numbers at the edges, bytes that are not
   * UTF-8.
   */
  private static final String[] PIECES = {
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\\",
    "\\u",
    "\\ud800",
    "x",
    "-",
    "+",
    ".",
    "e",
    "1e400",
    "-1e-400",
    "9223372036854775808",
    "1e999999999",
    "NaN",
    "Infinity",
    "null",
    "true",
    "\"time\":5",
    "\"type\":\"A\"",
    "\r",
    "\t",
    "\u0000",
    "\u00e9",
    "\uFEFF",
    "(",
    ")",
    "SEQ(",
    "NOT ",
    "OR(",
    "AND(",
    "+",
    "*",
    "WITHIN",
    "SLIDE",
    "QUERY q",
    "RETURN",
    "PATTERN",
    "WHERE",
    "GROUPBY",
    "NEXT(",
    "COUNT(",
    "MIN(",
    "9999999999999999999999",
    "0",
    "ms",
    "minutes",
    "'",
    "--",
    "\n"
  };

  private static final byte[][] BAD_BYTES = {
    {(byte) 0xC3},
    {(byte) 0xFF},
    {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
    {(byte) 0xF8},
    {(byte) 0xE2, (byte) 0x82}
  };

  @TempDir Path temp;

  private record Outcome(int exitCode, String err) {}

  private static Outcome run(String... args) {
    return assertTimeoutPreemptively(
        Duration.ofSeconds(60),
        () -> {
          CommandLine cli = EventideCli.commandLine();
          StringWriter err = new StringWriter();
          cli.setErr(new PrintWriter(err));
          int code = cli.execute(args);
          assertThat(err.toString(), err.toString(), not(containsString("\tat ")));
          assertThat(err.toString(), err.toString(), not(containsString("Exception")));
          return new Outcome(code, err.toString());
        },
        () -> "a hang: trends " + String.join(" ", args));
  }

  @Test
  void malformedEventLinesAreEventsOrDeadLettersNeverACrash() throws IOException {
    Path queries = temp.resolve("rides.queries");
    Files.writeString(queries, QUERIES);
    for (long seed : Seeds.range(1, 20).toArray()) {
      Random random = new Random(seed);
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      for (int i = 0; i < 150; i++) {
        byte[] line = validEvent(random, i).getBytes(StandardCharsets.UTF_8);
        if (random.nextInt(3) > 0) {
          line = mutate(random, line);
        }
        bytes.writeBytes(line);
        bytes.write(random.nextInt(10) == 0 ? '\r' : '\n');
        if (random.nextInt(10) == 0) {
          bytes.write('\n');
        }
      }
      Path events = temp.resolve("events-" + seed + ".jsonl");
      Files.write(events, bytes.toByteArray());
      Path dead = temp.resolve("dead-" + seed + ".jsonl");
      Outcome o =
          run(
              "trends",
              "--queries=" + queries,
              "--events=" + events,
              "--sort",
              "--out=" + temp.resolve("out-" + seed + ".jsonl"),
              "--dead-letter=" + dead);
      assertThat("seed " + seed + ": " + o.err(), o.exitCode(), equalTo(0));
      Matcher summary =
          java.util.regex.Pattern.compile("(\\d+) events, \\d+ results").matcher(o.err());
      assertThat(o.err(), summary.find(), equalTo(true));
      long read = Long.parseLong(summary.group(1));
      long deadLetters = Files.readAllLines(dead, StandardCharsets.UTF_8).size();
      assertThat(
          "seed " + seed + ": events + dead letters",
          read + deadLetters,
          equalTo(nonBlankLines(bytes.toByteArray())));
    }
  }

  @Test
  void malformedQueryFilesAreUsageErrorsWithTheirPlaceNeverACrash() throws IOException {
    Path events = temp.resolve("events.jsonl");
    StringBuilder valid = new StringBuilder();
    Random eventRandom = new Random(7);
    for (int i = 0; i < 200; i++) {
      valid.append(validEvent(eventRandom, i)).append('\n');
    }
    Files.writeString(events, valid);
    int usageErrors = 0;
    for (long seed : Seeds.range(1, 300).toArray()) {
      Random random = new Random(seed);
      byte[] text = QUERIES.getBytes(StandardCharsets.UTF_8);
      for (int m = 1 + random.nextInt(3); m > 0; m--) {
        text = mutate(random, text);
      }
      if (random.nextInt(20) == 0) {
        text = nest(random, text);
      }
      Path queries = temp.resolve("q-" + seed + ".queries");
      Files.write(queries, text);
      Outcome o =
          run(
              "trends",
              "--queries=" + queries,
              "--events=" + events,
              "--out=" + temp.resolve("out.jsonl"),
              "--dead-letter=" + temp.resolve("dead.jsonl"));
      assertThat("seed " + seed + ": " + o.err(), o.exitCode(), anyOf(equalTo(0), equalTo(2)));
      if (o.exitCode() == 2) {
        usageErrors++;
        String first = o.err().lines().findFirst().orElse("");
        assertThat(
            "seed " + seed,
            first,
            matchesPattern(
                "eventide trends: "
                    + java.util.regex.Pattern.quote(queries.toString())
                    + "(:\\d+(:\\d+)?)?: .+"));
      }
    }
    // The mutations are meant to break most files: a fuzzer that breaks none tests nothing.
    assertThat(usageErrors > 150, equalTo(true));
  }

  private static String validEvent(Random random, int i) {
    String type = TYPES[random.nextInt(TYPES.length)];
    return "{\"type\":\""
        + type
        + "\",\"time\":"
        + (i * 3 + random.nextInt(3))
        + ",\"driver\":"
        + random.nextInt(3)
        + ",\"district\":"
        + random.nextInt(2)
        + ",\"speed\":"
        + random.nextInt(20)
        + "."
        + random.nextInt(10)
        + "}";
  }

  /** One random edit: insert a piece or a bad byte sequence, delete or duplicate a span, cut. */
  private static byte[] mutate(Random random, byte[] text) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int at = random.nextInt(text.length + 1);
    int span = Math.min(text.length - at, 1 + random.nextInt(12));
    out.write(text, 0, at);
    switch (random.nextInt(6)) {
      case 0 ->
          out.writeBytes(PIECES[random.nextInt(PIECES.length)].getBytes(StandardCharsets.UTF_8));
      case 1 -> out.writeBytes(BAD_BYTES[random.nextInt(BAD_BYTES.length)]);
      case 2 -> at += span; // delete
      case 3 -> out.write(text, at, span); // duplicate
      case 4 -> {
        return out.toByteArray(); // cut
      }
      default -> {
        String digits = "9".repeat(1 + random.nextInt(40));
        out.writeBytes(digits.getBytes(StandardCharsets.UTF_8));
      }
    }
    out.write(text, at, text.length - at);
    return out.toByteArray();
  }

  /**
   * Wraps a pattern in thousands of parentheses or SEQ(...), the depth that once overflowed the
   * stack.
   */
  private static byte[] nest(Random random, byte[] text) {
    String s = new String(text, StandardCharsets.UTF_8);
    int depth = 50 + random.nextInt(5_000);
    String open = random.nextBoolean() ? "(" : "SEQ(";
    return s.replaceFirst("PATTERN ", Matcher.quoteReplacement("PATTERN " + open.repeat(depth)))
        .replaceFirst("\n", Matcher.quoteReplacement(")".repeat(depth) + "\n"))
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Lines as a user counts them: ended by LF (a CR before it dropped), skipping blank valid ones.
   */
  private static long nonBlankLines(byte[] bytes) {
    boolean bom =
        bytes.length >= 3
            && bytes[0] == (byte) 0xEF
            && bytes[1] == (byte) 0xBB
            && bytes[2] == (byte) 0xBF;
    long lines = 0;
    for (int start = bom ? 3 : 0; start < bytes.length; ) {
      int end = start;
      while (end < bytes.length && bytes[end] != '\n') {
        end++;
      }
      int stop = end > start && bytes[end - 1] == '\r' ? end - 1 : end;
      if (!isBlankText(bytes, start, stop)) {
        lines++;
      }
      start = end + 1;
    }
    return lines;
  }

  private static boolean isBlankText(byte[] bytes, int start, int end) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .decode(ByteBuffer.wrap(bytes, start, end - start))
          .toString()
          .isBlank();
    } catch (CharacterCodingException e) {
      return false;
    }
  }
}
