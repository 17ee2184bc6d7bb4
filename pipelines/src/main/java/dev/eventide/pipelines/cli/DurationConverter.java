package dev.eventide.pipelines.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.joda.time.Duration;
import picocli.CommandLine;

/** Reads durations such as {@code 250ms}, {@code 10s}, {@code 5m}, {@code 2h}, {@code 1d}. */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
  private static final Pattern FORM = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  @Override
  public Duration convert(String value) {
    Matcher m = FORM.matcher(value.strip().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is not a duration; use a whole number and a unit: ms, s, m, h or d");
    }
    long unit =
        switch (m.group(2)) {
          case "ms" -> 1;
          case "s" -> 1_000;
          case "m" -> 60_000;
          case "h" -> 3_600_000;
          default -> 86_400_000;
        };
    try {
      return Duration.millis(Math.multiplyExact(Long.parseLong(m.group(1)), unit));
    } catch (ArithmeticException | NumberFormatException e) {
      throw new CommandLine.TypeConversionException(
          "'"
              + value
              + "' is longer than the longest duration, "
              + Long.MAX_VALUE
              + " ms (about 292 million years)");
    }
  }

  /** The form {@link #convert} reads, e.g. {@code 10s}. */
  static String format(Duration d) {
    long ms = d.getMillis();
    if (ms % 86_400_000 == 0 && ms > 0) {
      return ms / 86_400_000 + "d";
    } else if (ms % 3_600_000 == 0 && ms > 0) {
      return ms / 3_600_000 + "h";
    } else if (ms % 60_000 == 0 && ms > 0) {
      return ms / 60_000 + "m";
    } else if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }
}
