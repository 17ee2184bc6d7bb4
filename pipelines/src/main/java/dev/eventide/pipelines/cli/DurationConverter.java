package dev.eventide.pipelines.cli;

import dev.eventide.trends.query.TimeUnits;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.joda.time.Duration;
import picocli.CommandLine;

/**
 * Reads durations in the syntax of query files ({@link TimeUnits}): {@code 250ms}, {@code 10s},
 * {@code 5m}, {@code "30 minutes"}, {@code 2h}, {@code 1d}.
 */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
  /** The help text's line on durations, the same for flags and query files. */
  static final String HELP =
      "Durations (flags and query files): a whole number and a unit, with or without a space"
          + " (250ms, 10s, 5m, 30 minutes, 2h, 1d); units: "
          + TimeUnits.UNITS
          + ".";

  private static final Pattern FORM = Pattern.compile("(\\d+)\\s*([A-Za-z]+)");

  @Override
  public Duration convert(String value) {
    Matcher m = FORM.matcher(value.strip());
    long unit = m.matches() ? TimeUnits.millisPer(m.group(2)) : -1;
    if (unit < 0) {
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is not a duration; use a whole number and a unit: " + TimeUnits.UNITS);
    }
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
