package dev.eventide.trends.query;

import java.util.Locale;

/**
 * The one duration syntax of Eventide's query files and command line: a whole number and a unit,
 * with or without a space between ({@code 250ms}, {@code 10 s}, {@code 5m}, {@code 30 minutes},
 * {@code 2h}, {@code 1 day}).
 *
 * <pre>{@code
 * long minute = TimeUnits.millisPer("minutes");   // 60_000
 * long none = TimeUnits.millisPer("fortnight");    // -1: not a unit, see TimeUnits.UNITS
 * }</pre>
 */
public final class TimeUnits {
  /** The units, as error messages and help texts name them. */
  public static final String UNITS =
      "ms (millisecond[s]), s (second[s]), m (min, minute[s]), h (hour[s]) or d (day[s])";

  private TimeUnits() {}

  /** Milliseconds per {@code unit} (any case), or -1 if it is not a unit. */
  public static long millisPer(String unit) {
    return switch (unit.toLowerCase(Locale.ROOT)) {
      case "ms", "millisecond", "milliseconds" -> 1L;
      case "s", "second", "seconds" -> 1_000L;
      case "m", "min", "minute", "minutes" -> 60_000L;
      case "h", "hour", "hours" -> 3_600_000L;
      case "d", "day", "days" -> 86_400_000L;
      default -> -1L;
    };
  }
}
