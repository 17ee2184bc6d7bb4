package dev.eventide.testing.differential;

import java.util.Locale;
import java.util.stream.LongStream;

/**
 * How many seeds a random suite runs: its usual count times the scale set with {@code
 * -Deventide.test.seedScale=F} (1 unless set), and at least one. {@code mvn verify
 * -Deventide.test.seedScale=10} runs ten times as many random cases (a soak before a release);
 * {@code 0.1} a tenth (a quick check while editing).
 *
 * <pre>{@code
 * for (long seed : Seeds.range(0, 3000).toArray()) {
 *   assertSameResults(seed);
 * }
 * }</pre>
 */
public final class Seeds {
  /** The system property that scales every random suite's seed count. */
  public static final String SCALE_PROPERTY = "eventide.test.seedScale";

  private Seeds() {}

  /** The scale set by {@link #SCALE_PROPERTY}; 1 when unset. */
  public static double scale() {
    String value = System.getProperty(SCALE_PROPERTY);
    if (value == null || value.isBlank()) {
      return 1;
    }
    double scale;
    try {
      scale = Double.parseDouble(value.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT, "%s must be a number > 0, but was '%s'", SCALE_PROPERTY, value),
          e);
    }
    if (!(scale > 0) || Double.isInfinite(scale)) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT, "%s must be a number > 0, but was '%s'", SCALE_PROPERTY, value));
    }
    return scale;
  }

  /** {@code usual} scaled: {@code max(1, round(usual * scale()))}. */
  public static int count(int usual) {
    if (usual < 1) {
      throw new IllegalArgumentException("usual must be >= 1, but was " + usual);
    }
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, Math.round(usual * scale())));
  }

  /** The seeds {@code first, first + 1, ...}, {@link #count(int) count(usual)} of them. */
  public static LongStream range(long first, int usual) {
    return LongStream.range(first, first + count(usual));
  }
}
