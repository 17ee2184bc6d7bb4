package dev.eventide.pipelines.aion;

import dev.eventide.tiering.WindowFunction;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.values.KV;

/**
 * The Aion paper's two micro-benchmark window functions, each needing all of a window's values: the
 * average, and the most frequent bigram ({@link Bigrams}). A window's values are {@code KV(event
 * time in epoch milliseconds, value)}; the result carries the window's count and sum too, so that
 * runs on different runners and with different windowing compare exactly.
 */
public enum AionWorkload implements WindowFunction<Integer, KV<Long, Long>, WindowValue> {
  /** The average of the values, to three decimals. */
  AVERAGE("average") {
    @Override
    public WindowValue apply(Integer key, BoundedWindow window, Iterable<KV<Long, Long>> values) {
      CountSum total = CountSum.EMPTY;
      for (KV<Long, Long> v : values) {
        total = total.plus(v.getValue());
      }
      return new WindowValue(total.count(), total.sum(), average(total));
    }
  },
  /** The most frequent bigram of the words the values name, in event-time order. */
  BIGRAMS("top bigram") {
    @Override
    public WindowValue apply(Integer key, BoundedWindow window, Iterable<KV<Long, Long>> values) {
      List<KV<Long, Long>> ordered = new ArrayList<>();
      CountSum total = CountSum.EMPTY;
      for (KV<Long, Long> v : values) {
        ordered.add(v);
        total = total.plus(v.getValue());
      }
      // event time, then value: the order is the same however the values arrived
      ordered.sort(
          Comparator.comparing((KV<Long, Long> v) -> v.getKey()).thenComparing(KV::getValue));
      long[] text = ordered.stream().mapToLong(KV::getValue).toArray();
      return new WindowValue(total.count(), total.sum(), Bigrams.mostFrequent(text));
    }
  };

  private final String resultName;

  AionWorkload(String resultName) {
    this.resultName = resultName;
  }

  /** What the result column of the report is called. */
  public String resultName() {
    return resultName;
  }

  /** The workload's name on the command line. */
  public String cliName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The printed average of a count and sum. */
  static String average(CountSum total) {
    return total.count() == 0
        ? "-"
        : String.format(Locale.ROOT, "%.3f", (double) total.sum() / total.count());
  }
}
