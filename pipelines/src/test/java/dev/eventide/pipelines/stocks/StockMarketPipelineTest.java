package dev.eventide.pipelines.stocks;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.closeTo;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LateEventGenerator;
import dev.eventide.pipelines.output.SortedTextFile;
import dev.eventide.testing.runners.OnEachRunner;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.values.KV;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The stock-market dataflow against plain Java over the generated events: every output file
 * (rolling aggregates, alerts, mentions, the join, the correlations) equals what the definitions
 * give for the events that arrived within the allowed lateness, on the DirectRunner and on embedded
 * Flink.
 */
class StockMarketPipelineTest {
  private static final Duration LATENESS = Duration.standardSeconds(15);

  @TempDir Path output;

  private static LateEventGenerator prices() {
    return LateEventGenerator.builder()
        .setEvents(1_600)
        .setEventsPerWindow(200)
        .setKeys(4)
        .setMaxValue(StockMarketPipeline.PRICE_STEPS)
        .setLateFraction(0.5)
        .setSeed(21)
        .build();
  }

  private static LateEventGenerator posts() {
    return prices().toBuilder().setEvents(800).setEventsPerWindow(100).setSeed(22).build();
  }

  @OnEachRunner
  void everyOutputIsTheDefinitionsOverTheKeptEvents(TestPipeline p) {
    StockMarketPipeline.Settings settings =
        StockMarketPipeline.Settings.of(
            prices(),
            posts(),
            LATENESS,
            output.resolve("blocks").toUri().toString(),
            Duration.ZERO,
            output.toString());
    StockMarketPipeline.build(p, settings);
    p.run().waitUntilFinish();

    Map<String, List<String>> expected = reference(prices(), posts());
    for (String name : StockMarketPipeline.OUTPUTS) {
      assertThat(name + " has results", expected.get(name).size(), greaterThan(3));
      assertThat(name, SortedTextFile.read(output, name), equalTo(expected.get(name)));
    }
  }

  /** Each output's sorted lines, from the events directly. */
  private static Map<String, List<String>> reference(
      LateEventGenerator prices, LateEventGenerator posts) {
    long window = prices.window().getMillis();
    FixedWindows tumbling = FixedWindows.of(prices.window());
    // symbol -> window start -> kept prices as (time, cents)
    Map<String, List<long[]>> slidingPrices = new TreeMap<>();
    Map<String, List<long[]>> tumblingPrices = new TreeMap<>();
    int late = 0;
    for (LateEvent e : prices) {
      if (!kept(e, tumbling)) {
        continue;
      }
      late += e.isLate() ? 1 : 0;
      long t = e.eventTime().getMillis();
      long[] price = {t, 10_000 + e.value()};
      String symbol = StockMarketPipeline.symbol(e.key());
      long half = window / 2;
      for (long start = Math.floorDiv(t, half) * half; start > t - window; start -= half) {
        slidingPrices.computeIfAbsent(start + " " + symbol, k -> new ArrayList<>()).add(price);
      }
      tumblingPrices
          .computeIfAbsent(Math.floorDiv(t, window) * window + " " + symbol, k -> new ArrayList<>())
          .add(price);
    }
    assertThat("late prices kept", late, greaterThan(50));
    Map<String, Long> mentions = new TreeMap<>();
    for (LateEvent e : posts) {
      if (kept(e, tumbling)) {
        mentions.merge(
            Math.floorDiv(e.eventTime().getMillis(), window) * window
                + " "
                + StockMarketPipeline.symbol(e.key()),
            1L,
            Long::sum);
      }
    }

    Map<String, List<String>> out = new TreeMap<>();
    StockMarketPipeline.OUTPUTS.forEach(o -> out.put(o, new ArrayList<>()));
    slidingPrices.forEach(
        (startAndSymbol, list) -> {
          String[] parts = startAndSymbol.split(" ");
          long start = Long.parseLong(parts[0]);
          long min = list.stream().mapToLong(x -> x[1]).min().orElseThrow();
          long max = list.stream().mapToLong(x -> x[1]).max().orElseThrow();
          long sum = list.stream().mapToLong(x -> x[1]).sum();
          out.get("rolling")
              .add(
                  String.format(
                      Locale.ROOT,
                      "%s %s %s count=%d min=%d.%02d max=%d.%02d mean=%.4f",
                      new Instant(start),
                      new Instant(start + window),
                      parts[1],
                      list.size(),
                      min / 100,
                      min % 100,
                      max / 100,
                      max % 100,
                      sum / (double) list.size() / 100));
        });
    Map<String, Long> alerts = new TreeMap<>();
    tumblingPrices.forEach(
        (startAndSymbol, list) -> {
          list.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
          long moves = 0;
          for (int i = 1; i < list.size(); i++) {
            double change =
                Math.abs(list.get(i)[1] - list.get(i - 1)[1]) / (double) list.get(i - 1)[1];
            moves += change >= 0.05 - 1e-12 ? 1 : 0;
          }
          alerts.put(startAndSymbol, moves);
        });
    alerts.forEach((k, v) -> out.get("alerts").add(line(k) + " alerts=" + v));
    mentions.forEach((k, v) -> out.get("mentions").add(line(k) + " mentions=" + v));
    Map<Long, List<KV<Long, Long>>> perWindow = new TreeMap<>();
    alerts.forEach(
        (k, a) -> {
          Long m = mentions.get(k);
          if (m != null) {
            out.get("joined").add(line(k) + " alerts=" + a + " mentions=" + m);
            perWindow
                .computeIfAbsent(Long.parseLong(k.split(" ")[0]), w -> new ArrayList<>())
                .add(KV.of(a, m));
          }
        });
    perWindow.forEach(
        (start, pairs) -> {
          double r = pearson(pairs);
          out.get("correlation")
              .add(
                  new Instant(start)
                      + " symbols="
                      + pairs.size()
                      + " r="
                      + (Double.isNaN(r) ? "undefined" : String.format(Locale.ROOT, "%.6f", r)));
        });
    out.values().forEach(lines -> lines.sort(null));
    return out;
  }

  private static boolean kept(LateEvent e, FixedWindows windows) {
    IntervalWindow w = windows.assignWindow(e.eventTime());
    return !w.maxTimestamp().plus(LATENESS).isBefore(e.watermark());
  }

  private static String line(String startAndSymbol) {
    String[] parts = startAndSymbol.split(" ");
    return new Instant(Long.parseLong(parts[0])) + " " + parts[1];
  }

  private static double pearson(List<KV<Long, Long>> pairs) {
    return StockMarketPipeline.correlation(pairs);
  }

  @Test
  void correlationIsPearsons() {
    assertThat(
        StockMarketPipeline.correlation(List.of(KV.of(1L, 2L), KV.of(2L, 4L), KV.of(3L, 6L))),
        closeTo(1.0, 1e-12));
    assertThat(
        StockMarketPipeline.correlation(List.of(KV.of(1L, 3L), KV.of(2L, 2L), KV.of(3L, 1L))),
        closeTo(-1.0, 1e-12));
    // x = 1, 2, 3, 4; y = 1, 3, 2, 4: cov 3.2 / 4 ... r = 0.8
    assertThat(
        StockMarketPipeline.correlation(
            List.of(KV.of(1L, 1L), KV.of(2L, 3L), KV.of(3L, 2L), KV.of(4L, 4L))),
        closeTo(0.8, 1e-12));
    assertThat(
        Double.isNaN(StockMarketPipeline.correlation(List.of(KV.of(1L, 1L), KV.of(1L, 2L)))),
        equalTo(true));
    assertThat(
        Double.isNaN(StockMarketPipeline.correlation(List.of(KV.of(1L, 1L)))), equalTo(true));
  }

  @Test
  void alertsCountMovesOfFivePercentInEventTimeOrder() {
    // in time order: 100.00, 105.00 (+5%: alert), 104.00, 98.80 (-5%: alert), 98.00
    assertThat(
        StockMarketPipeline.moves(
            List.of(
                KV.of(3L, 10_400L),
                KV.of(1L, 10_000L),
                KV.of(5L, 9_800L),
                KV.of(2L, 10_500L),
                KV.of(4L, 9_880L))),
        equalTo(2L));
    assertThat(StockMarketPipeline.moves(List.of(KV.of(1L, 10_000L))), equalTo(0L));
  }

  @Test
  void settingsNameWhatIsWrong() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                StockMarketPipeline.Settings.of(
                    prices(),
                    posts().toBuilder().setKeys(5).build(),
                    LATENESS,
                    "memory:x",
                    Duration.ZERO,
                    output.toString()));
    assertThat(e.getMessage(), containsString("same symbols"));
    e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                StockMarketPipeline.Settings.of(
                    prices().toBuilder().setWindow(Duration.millis(999)).build(),
                    posts().toBuilder().setWindow(Duration.millis(999)).build(),
                    LATENESS,
                    "memory:x",
                    Duration.ZERO,
                    output.toString()));
    assertThat(e.getMessage(), containsString("even number of milliseconds"));
  }
}
