package dev.eventide.pipelines.cli;

import dev.eventide.generators.LateEventGenerator;
import dev.eventide.pipelines.stocks.StockMarketPipeline;
import java.util.List;
import java.util.Locale;
import org.apache.beam.sdk.Pipeline;
import org.joda.time.Duration;
import picocli.CommandLine.Command;

/** {@code eventide run stock-market}: the Aion paper's stock dataflow. */
@Command(
    name = "stock-market",
    mixinStandardHelpOptions = true,
    versionProvider = EventideCli.Version.class,
    description = {
      "The Aion paper's stock dataflow: per-symbol rolling min/max/mean in a sliding window (the"
          + " window, every half of it), alerts on moves of at least 5%% and post mentions per"
          + " tumbling window, joined per symbol (AggregateJoin), and their correlation per"
          + " window. Windows are TieredWindow; the join reads each window's final values, once"
          + " its lateness is over. --events prices and half as many posts."
    },
    footer = {"", DurationConverter.HELP},
    sortOptions = false)
final class StockMarketCommand extends DataflowCommand {
  /** Symbols of the stock-market workload. */
  static final int SYMBOLS = 16;

  StockMarketCommand() {
    super("stock-market", Duration.standardSeconds(10), 10_000);
  }

  @Override
  Built build(
      Pipeline pipeline,
      LateEventGenerator generator,
      String blockStore,
      Duration purgeDelay,
      String directory) {
    LateEventGenerator prices =
        generator.toBuilder().setKeys(SYMBOLS).setMaxValue(StockMarketPipeline.PRICE_STEPS).build();
    LateEventGenerator posts =
        prices.toBuilder()
            .setEvents(stream.events / 2)
            .setEventsPerWindow(Math.max(1, arrival.eventsPerWindow / 2))
            .setSeed(stream.seed + 1)
            .build();
    StockMarketPipeline.build(
        pipeline,
        StockMarketPipeline.Settings.of(
            prices, posts, stream.allowedLateness, blockStore, purgeDelay, directory));
    String namespace = StockMarketPipeline.METRICS_NAMESPACE;
    return new Built(
        StockMarketPipeline.OUTPUTS,
        namespace,
        List.of(namespace + ".prices", namespace + ".posts"),
        String.format(
            Locale.ROOT,
            "%,d prices and %,d posts of %d symbols",
            stream.events,
            stream.events / 2,
            SYMBOLS));
  }
}
