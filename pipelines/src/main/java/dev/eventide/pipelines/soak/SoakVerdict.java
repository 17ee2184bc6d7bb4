package dev.eventide.pipelines.soak;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whether a soak run's state stayed flat: after the warm-up (the first {@code 1/(ratio + 1)} of the
 * events read, so that the rest of the run is {@code ratio} times longer), each series' mean over
 * the last third of the rest (by events read) is within {@code tolerance} of its mean over the
 * middle third. A series whose middle third averages fewer than {@link #FLOOR} is judged on its
 * change against the floor, so that a handful of held keys does not read as 50% growth. Series
 * named in {@code reportedOnly} are reported but not judged.
 *
 * @param flat whether every series stayed within the tolerance
 * @param changes each series' relative change from the middle third to the last
 * @param line the verdict, one line
 */
public record SoakVerdict(boolean flat, Map<String, Double> changes, String line) {
  /** Series below this mean are compared with it instead of their own mean. */
  static final double FLOOR = 100;

  /**
   * Judges {@code samples}.
   *
   * @throws IllegalArgumentException if no event was read, or a third has no sample
   */
  public static SoakVerdict judge(
      List<SoakSample> samples, int ratio, double tolerance, Set<String> reportedOnly) {
    long total = samples.isEmpty() ? 0 : samples.get(samples.size() - 1).events();
    if (total == 0) {
      throw new IllegalArgumentException("no event was read");
    }
    long warmUp = total / (ratio + 1);
    long third = (total - warmUp) / 3;
    List<SoakSample> middle = between(samples, warmUp + third, warmUp + 2 * third);
    List<SoakSample> last = between(samples, warmUp + 2 * third, Long.MAX_VALUE);
    if (middle.isEmpty() || last.isEmpty()) {
      throw new IllegalArgumentException(
          "a verdict needs samples in the middle and last thirds after the warm-up, but the run"
              + " has "
              + samples.size()
              + " in all: read more often or run longer");
    }
    Map<String, Double> changes = new LinkedHashMap<>();
    List<String> beyond = new ArrayList<>();
    for (String series : samples.get(samples.size() - 1).series().keySet()) {
      double before = mean(middle, series);
      double after = mean(last, series);
      double change = (after - before) / Math.max(before, FLOOR);
      changes.put(series, change);
      if (Math.abs(change) > tolerance && !reportedOnly.contains(series)) {
        beyond.add(String.format("%s %+.1f%%", series, 100 * change));
      }
    }
    String summary =
        String.format(
            "after a warm-up of %,d of %,d events, last third (%d samples) against middle third"
                + " (%d samples): %s",
            warmUp, total, last.size(), middle.size(), format(changes));
    return beyond.isEmpty()
        ? new SoakVerdict(true, changes, "FLAT (within ±" + percent(tolerance) + ") " + summary)
        : new SoakVerdict(
            false,
            changes,
            "GROWING (beyond ±"
                + percent(tolerance)
                + ": "
                + String.join(", ", beyond)
                + ") "
                + summary);
  }

  /** The samples taken when the events read were in {@code [from, to)}. */
  private static List<SoakSample> between(List<SoakSample> samples, long from, long to) {
    List<SoakSample> in = new ArrayList<>();
    for (SoakSample s : samples) {
      if (s.events() >= from && s.events() < to) {
        in.add(s);
      }
    }
    return in;
  }

  private static double mean(List<SoakSample> samples, String series) {
    double sum = 0;
    for (SoakSample s : samples) {
      sum += s.series().getOrDefault(series, 0L);
    }
    return sum / samples.size();
  }

  private static String format(Map<String, Double> changes) {
    List<String> parts = new ArrayList<>();
    changes.forEach(
        (series, change) -> parts.add(String.format("%s %+.1f%%", series, 100 * change)));
    return String.join(", ", parts);
  }

  private static String percent(double fraction) {
    return String.format("%.0f%%", 100 * fraction);
  }
}
