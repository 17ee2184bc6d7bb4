package dev.eventide.pipelines.stocks;

import com.google.auto.value.AutoValue;
import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LateEventGenerator;
import dev.eventide.pipelines.output.SortedTextFile;
import dev.eventide.pipelines.windows.FinalPanes;
import dev.eventide.pipelines.windows.FinalValue;
import dev.eventide.pipelines.windows.LatenessGate;
import dev.eventide.pipelines.windows.WindowSteps;
import dev.eventide.tiering.TieredWindow;
import dev.eventide.tiering.WindowFunction;
import dev.eventide.transforms.AggregateJoin;
import dev.eventide.transforms.primitives.WindowSpec;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.Count;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.AfterPane;
import org.apache.beam.sdk.transforms.windowing.AfterWatermark;
import org.apache.beam.sdk.transforms.windowing.DefaultTrigger;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.SlidingWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The Aion paper's stock-market dataflow (after Flink's stock prices example), on Eventide's
 * transforms, over two generated streams with late events: prices per symbol, and posts that
 * mention a symbol.
 *
 * <ol>
 *   <li><b>rolling</b>: per symbol, the count, minimum, maximum and mean price in a sliding window
 *       (the window length, every half of it), on {@link TieredWindow};
 *   <li><b>alerts</b>: per symbol and tumbling window, a window function over the prices in
 *       event-time order counts the moves of at least {@value #MOVE_PERCENT}% from one price to the
 *       next ({@link TieredWindow});
 *   <li><b>mentions</b>: per symbol and tumbling window, the posts that mention it (Beam's
 *       windowing and {@code Count});
 *   <li><b>joined</b>: alert and mention counts joined per symbol with {@link AggregateJoin};
 *   <li><b>correlation</b>: per tumbling window, the Pearson correlation between the symbols' alert
 *       counts and mention counts.
 * </ol>
 *
 * <p>Late events update the windows they belong to until the allowed lateness ends; beyond it, they
 * are set aside by the watermark they arrived under ({@link LatenessGate}) and counted. Every
 * window's panes accumulate, and what goes downstream of the first windows is each window's final
 * value ({@link FinalPanes}): the join and the correlation see one value per symbol and window,
 * once its lateness is over, so their results are exact and the same on every runner (a join of
 * intermediate panes would pair whichever updates a runner put in one pane). The price is latency:
 * a window's join waits for the end of its allowed lateness.
 *
 * <p>Prices are {@code 100.00 + value/100}, the generator's value being in {@code [0, 1000)}: a
 * move of 5% or more happens between about one in five consecutive prices. Each output file in
 * {@code <output>/} has one sorted line per result (see {@link StockMarketReport}).
 */
public final class StockMarketPipeline {
  /** Namespace of the pipeline's own Beam metrics; each stream's gate counts under a sub-name. */
  public static final String METRICS_NAMESPACE = "eventide.stocks";

  /** The output files, in dataflow order. */
  public static final List<String> OUTPUTS =
      List.of("rolling", "alerts", "mentions", "joined", "correlation");

  /** A move from one price to the next of at least this many percent is an alert. */
  public static final int MOVE_PERCENT = 5;

  /** The price of a generated value 0. */
  static final long BASE_CENTS = 10_000;

  /** Values the generators draw; a price is {@link #BASE_CENTS} plus one of them. */
  public static final long PRICE_STEPS = 1_000;

  /** Extra windows of lateness the windowing tolerates beyond the gate's bound (as in Aion's). */
  static final int WATERMARK_SKEW_WINDOWS = 2;

  private static final List<String> TICKERS =
      List.of(
          "ACME", "BOLT", "CRUX", "DYNA", "ECHO", "FLUX", "GRID", "HALO", "IONX", "JADE", "KITE",
          "LUMO", "MESA", "NOVA", "ORBT", "PIKE");

  private StockMarketPipeline() {}

  /** What to run: the two streams, the allowed lateness, where blocks and output go. */
  @AutoValue
  public abstract static class Settings {
    /** Prices: the key is the symbol, the value the price step. */
    public abstract LateEventGenerator prices();

    /** Posts: the key is the symbol mentioned. */
    public abstract LateEventGenerator posts();

    public abstract Duration allowedLateness();

    /** The {@link TieredWindow} block store's URI. */
    public abstract String store();

    /** How long past windows' blocks outlive their lateness. */
    public abstract Duration purgeDelay();

    public abstract String outputDirectory();

    /**
     * Returns validated settings.
     *
     * @throws IllegalArgumentException naming what is wrong: streams of different windows or
     *     symbols, a window of an odd number of milliseconds (the sliding window moves by half of
     *     it), prices outside {@code [0, }{@value #PRICE_STEPS}{@code )}, a negative lateness or
     *     purge delay
     */
    public static Settings of(
        LateEventGenerator prices,
        LateEventGenerator posts,
        Duration allowedLateness,
        String store,
        Duration purgeDelay,
        String outputDirectory) {
      if (!prices.window().equals(posts.window())) {
        throw new IllegalArgumentException(
            "prices and posts must have the same window, but had "
                + prices.window()
                + " and "
                + posts.window());
      }
      if (prices.keys() != posts.keys()) {
        throw new IllegalArgumentException(
            "prices and posts must name the same symbols, but had "
                + prices.keys()
                + " and "
                + posts.keys());
      }
      if (prices.window().getMillis() % 2 != 0) {
        throw new IllegalArgumentException(
            "the window must be an even number of milliseconds (the sliding window moves by half"
                + " of it), but was "
                + prices.window());
      }
      if (prices.maxValue() > PRICE_STEPS) {
        throw new IllegalArgumentException(
            "price values must be below " + PRICE_STEPS + ", but reach " + prices.maxValue());
      }
      if (allowedLateness.isShorterThan(Duration.ZERO)) {
        throw new IllegalArgumentException(
            "allowedLateness must be >= 0, but was " + allowedLateness);
      }
      if (purgeDelay.isShorterThan(Duration.ZERO)) {
        throw new IllegalArgumentException("purgeDelay must be >= 0, but was " + purgeDelay);
      }
      return new AutoValue_StockMarketPipeline_Settings(
          prices, posts, allowedLateness, store, purgeDelay, outputDirectory);
    }

    /** The lateness the windows keep: the gate's bound plus a margin for runner watermarks. */
    Duration tolerated() {
      return allowedLateness().plus(prices().window().multipliedBy(WATERMARK_SKEW_WINDOWS));
    }
  }

  /** The ticker of symbol {@code index}. */
  public static String symbol(int index) {
    return index < TICKERS.size() ? TICKERS.get(index) : "S" + index;
  }

  /** The price in cents of a generated price value. */
  public static long cents(long value) {
    return BASE_CENTS + value;
  }

  static String dollars(long cents) {
    return String.format(Locale.ROOT, "%d.%02d", cents / 100, cents % 100);
  }

  /** Adds the dataflow to {@code pipeline}. */
  public static void build(Pipeline pipeline, Settings settings) {
    Duration window = settings.prices().window();
    FixedWindows tumbling = FixedWindows.of(window);
    String out = settings.outputDirectory();

    PCollection<KV<Integer, KV<Long, Long>>> prices =
        WindowSteps.readWithinLateness(
                pipeline,
                "Prices",
                settings.prices(),
                settings.allowedLateness(),
                METRICS_NAMESPACE + ".prices")
            .apply(
                "PriceBySymbol",
                MapElements.into(
                        TypeDescriptors.kvs(
                            TypeDescriptors.integers(),
                            TypeDescriptors.kvs(TypeDescriptors.longs(), TypeDescriptors.longs())))
                    .via(
                        (LateEvent e) ->
                            KV.of(e.key(), KV.of(e.eventTime().getMillis(), cents(e.value())))))
            .setCoder(
                KvCoder.of(VarIntCoder.of(), KvCoder.of(VarLongCoder.of(), VarLongCoder.of())));

    PCollection<KV<Integer, FinalValue<Rolling>>> rolling =
        finalValues(
            WindowSteps.tiered(
                prices,
                "RollingAggregates",
                tiered(
                        SlidingWindows.of(window).every(window.dividedBy(2)),
                        (symbol, w, values) -> Rolling.of(values),
                        settings)
                    .withOutputCoder(Rolling.coder()),
                METRICS_NAMESPACE),
            "Rolling",
            settings);
    WindowSteps.writeFinal(
        rolling,
        "rolling",
        (key, r) ->
            instant(r.start())
                + " "
                + instant(r.end())
                + " "
                + symbol(key)
                + " "
                + r.value().describe(),
        out);

    PCollection<KV<Integer, FinalValue<Long>>> alerts =
        finalValues(
            WindowSteps.tiered(
                prices,
                "PriceAlerts",
                tiered(tumbling, (symbol, w, values) -> moves(values), settings)
                    .withOutputCoder(VarLongCoder.of()),
                METRICS_NAMESPACE),
            "Alerts",
            settings);
    WindowSteps.writeFinal(
        alerts,
        "alerts",
        (key, a) -> instant(a.start()) + " " + symbol(key) + " alerts=" + a.value(),
        out);

    PCollection<KV<Integer, FinalValue<Long>>> mentions =
        finalValues(
            WindowSteps.readWithinLateness(
                    pipeline,
                    "Posts",
                    settings.posts(),
                    settings.allowedLateness(),
                    METRICS_NAMESPACE + ".posts")
                .apply(
                    "MentionedSymbol",
                    MapElements.into(
                            TypeDescriptors.kvs(
                                TypeDescriptors.integers(), TypeDescriptors.longs()))
                        .via((LateEvent e) -> KV.of(e.key(), e.value())))
                .apply(
                    "MentionWindows",
                    Window.<KV<Integer, Long>>into(tumbling)
                        .triggering(
                            AfterWatermark.pastEndOfWindow()
                                .withLateFirings(AfterPane.elementCountAtLeast(1)))
                        .withAllowedLateness(settings.tolerated())
                        .accumulatingFiredPanes())
                .apply("CountMentions", Count.perKey()),
            "Mentions",
            settings);
    WindowSteps.writeFinal(
        mentions,
        "mentions",
        (key, m) -> instant(m.start()) + " " + symbol(key) + " mentions=" + m.value(),
        out);

    PCollection<KV<KV<Integer, FinalValue<Long>>, KV<Integer, FinalValue<Long>>>> joined =
        alerts.apply(
            "JoinAlertsAndMentions",
            AggregateJoin.with(mentions)
                .within(WindowSpec.tumbling(window))
                .keyedBy(
                    (KV<Integer, FinalValue<Long>> a) -> a.getKey(), KV::getKey, VarIntCoder.of())
                .where((a, m) -> a.getValue().start() == m.getValue().start()));

    PCollection<KV<Long, KV<Long, Long>>> counts =
        joined
            .apply(
                "AlertsAndMentionsPerWindow",
                MapElements.into(
                        TypeDescriptors.kvs(
                            TypeDescriptors.longs(),
                            TypeDescriptors.kvs(TypeDescriptors.longs(), TypeDescriptors.longs())))
                    .via(
                        pair ->
                            KV.of(
                                pair.getKey().getValue().start(),
                                KV.of(
                                    pair.getKey().getValue().value(),
                                    pair.getValue().getValue().value()))))
            .setCoder(
                KvCoder.of(VarLongCoder.of(), KvCoder.of(VarLongCoder.of(), VarLongCoder.of())));
    joined
        .apply(
            "JoinedLine",
            MapElements.into(TypeDescriptors.strings())
                .via(
                    pair ->
                        instant(pair.getKey().getValue().start())
                            + " "
                            + symbol(pair.getKey().getKey())
                            + " alerts="
                            + pair.getKey().getValue().value()
                            + " mentions="
                            + pair.getValue().getValue().value()))
        .apply("WriteJoined", SortedTextFile.write("joined", out));

    counts
        .apply(
            "CorrelationWindows",
            Window.<KV<Long, KV<Long, Long>>>into(tumbling)
                .triggering(DefaultTrigger.of())
                .withOnTimeBehavior(Window.OnTimeBehavior.FIRE_IF_NON_EMPTY)
                .withAllowedLateness(Duration.ZERO)
                .discardingFiredPanes())
        .apply("SymbolsPerWindow", GroupByKey.create())
        .apply("Correlation", ParDo.of(new CorrelationLine()))
        .setCoder(StringUtf8Coder.of())
        .apply("WriteCorrelation", SortedTextFile.write("correlation", out));
  }

  /** A window function on {@link TieredWindow} with the settings' lateness, store and purge. */
  private static <O> TieredWindow<Integer, KV<Long, Long>, O> tiered(
      WindowFn<Object, ?> windows,
      WindowFunction<Integer, KV<Long, Long>, O> function,
      Settings settings) {
    return TieredWindow.of(windows, function)
        .withAllowedLateness(settings.tolerated())
        .withStore(settings.store())
        .withPurgeDelay(settings.purgeDelay());
  }

  private static <V> PCollection<KV<Integer, FinalValue<V>>> finalValues(
      PCollection<KV<Integer, V>> panes, String name, Settings settings) {
    return panes.apply(
        name + "Final",
        FinalPanes.<Integer, V>afterLateness(settings.tolerated(), METRICS_NAMESPACE));
  }

  static String instant(long millis) {
    return new Instant(millis).toString();
  }

  /**
   * How many times the price moves by at least {@value #MOVE_PERCENT}% from one price to the next,
   * in event-time order (equal times by price): the alert function.
   */
  static long moves(Iterable<KV<Long, Long>> prices) {
    List<long[]> sorted = new ArrayList<>();
    for (KV<Long, Long> p : prices) {
      sorted.add(new long[] {p.getKey(), p.getValue()});
    }
    sorted.sort((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
    long moves = 0;
    for (int i = 1; i < sorted.size(); i++) {
      long previous = sorted.get(i - 1)[1];
      if (Math.abs(sorted.get(i)[1] - previous) * 100 >= MOVE_PERCENT * previous) {
        moves++;
      }
    }
    return moves;
  }

  /**
   * The Pearson correlation of the (alerts, mentions) pairs, computed from exact integer sums, or
   * NaN when it is undefined (fewer than two symbols, or no variation on either side).
   */
  static double correlation(Iterable<KV<Long, Long>> pairs) {
    BigInteger n = BigInteger.ZERO;
    BigInteger sx = BigInteger.ZERO;
    BigInteger sy = BigInteger.ZERO;
    BigInteger sxx = BigInteger.ZERO;
    BigInteger syy = BigInteger.ZERO;
    BigInteger sxy = BigInteger.ZERO;
    for (KV<Long, Long> p : pairs) {
      BigInteger x = BigInteger.valueOf(p.getKey());
      BigInteger y = BigInteger.valueOf(p.getValue());
      n = n.add(BigInteger.ONE);
      sx = sx.add(x);
      sy = sy.add(y);
      sxx = sxx.add(x.multiply(x));
      syy = syy.add(y.multiply(y));
      sxy = sxy.add(x.multiply(y));
    }
    BigInteger covariance = n.multiply(sxy).subtract(sx.multiply(sy));
    BigInteger varianceX = n.multiply(sxx).subtract(sx.multiply(sx));
    BigInteger varianceY = n.multiply(syy).subtract(sy.multiply(sy));
    if (varianceX.signum() == 0 || varianceY.signum() == 0) {
      return Double.NaN;
    }
    return covariance.doubleValue()
        / Math.sqrt(varianceX.doubleValue())
        / Math.sqrt(varianceY.doubleValue());
  }

  /** "start symbols=N r=R" per window, R to six decimals or "undefined". */
  private static final class CorrelationLine
      extends DoFn<KV<Long, Iterable<KV<Long, Long>>>, String> {
    @ProcessElement
    public void process(
        @Element KV<Long, Iterable<KV<Long, Long>>> window, OutputReceiver<String> out) {
      int symbols = 0;
      for (KV<Long, Long> ignored : window.getValue()) {
        symbols++;
      }
      if (symbols == 0) {
        return; // an empty on-time pane, which the Flink runner may fire beside the full one
      }
      double r = correlation(window.getValue());
      out.output(
          instant(window.getKey())
              + " symbols="
              + symbols
              + " r="
              + (Double.isNaN(r) ? "undefined" : String.format(Locale.ROOT, "%.6f", r)));
    }
  }
}
