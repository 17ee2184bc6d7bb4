package dev.eventide.pipelines.bench.tiering;

import dev.eventide.pipelines.aion.Bigrams;
import dev.eventide.tiering.WindowFunction;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;

/**
 * The Aion paper's two window functions, each needing all of a window's events: the average of the
 * values, and the most frequent bigram of words (a value names one of 200 words) in event-time
 * order.
 */
public enum Workload {
  AVERAGE(new Average()),
  BIGRAMS(new TopBigram());

  private final WindowFunction<Integer, Reading, WindowResult> function;

  Workload(WindowFunction<Integer, Reading, WindowResult> function) {
    this.function = function;
  }

  public WindowFunction<Integer, Reading, WindowResult> function() {
    return function;
  }

  public String cliName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  private static final class Average implements WindowFunction<Integer, Reading, WindowResult> {
    @Override
    public WindowResult apply(Integer key, BoundedWindow window, Iterable<Reading> readings) {
      long count = 0;
      long sum = 0;
      long newest = Long.MIN_VALUE;
      for (Reading r : readings) {
        count++;
        sum += r.value();
        newest = Math.max(newest, r.arrivalNanos());
      }
      return new WindowResult(
          count, count == 0 ? "-" : String.format("%.3f", (double) sum / count), newest);
    }
  }

  private static final class TopBigram implements WindowFunction<Integer, Reading, WindowResult> {
    @Override
    public WindowResult apply(Integer key, BoundedWindow window, Iterable<Reading> readings) {
      List<Reading> ordered = new ArrayList<>();
      long newest = Long.MIN_VALUE;
      for (Reading r : readings) {
        ordered.add(r);
        newest = Math.max(newest, r.arrivalNanos());
      }
      ordered.sort(
          Comparator.comparingLong(Reading::eventTimeMillis).thenComparingLong(Reading::value));
      String top = Bigrams.mostFrequent(ordered.stream().mapToLong(Reading::value).toArray());
      return new WindowResult(ordered.size(), top, newest);
    }
  }
}
