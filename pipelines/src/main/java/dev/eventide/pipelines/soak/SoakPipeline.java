package dev.eventide.pipelines.soak;

import dev.eventide.generators.LateEvent;
import dev.eventide.tiering.TieredWindow;
import dev.eventide.tiering.WindowFunction;
import dev.eventide.transforms.AggregateFilter;
import dev.eventide.transforms.AggregateJoin;
import dev.eventide.transforms.primitives.WindowSpec;
import dev.eventide.trends.Event;
import dev.eventide.trends.beam.TrendAggregate;
import dev.eventide.trends.query.Workload;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.Read;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;

/**
 * The soak job: one generated stream of ever-new keys with late events, through every stateful step
 * Eventide has, each with the run's allowed lateness.
 *
 * <ul>
 *   <li>{@value #TIERED_WINDOW}: {@code TieredWindow}, the count of each key's values per window,
 *       spilling to the store, behind its lateness gate (dead letters);
 *   <li>{@value #TREND_AGGREGATE}: {@code TrendAggregate}, the trends {@code E+} per key and window
 *       (GROUPBY key), its retained events in the store;
 *   <li>{@value #FILTER}: {@code AggregateFilter}, the even values;
 *   <li>{@value #JOIN}: {@code AggregateJoin}, the filtered values with their key's window counts.
 * </ul>
 *
 * <p>Each step's outputs are counted in namespace {@value #NAMESPACE}; {@link SoakGauges} reads
 * what each step holds.
 */
public final class SoakPipeline {
  /** The namespace of the soak's own counters. */
  public static final String NAMESPACE = "eventide.soak";

  static final String SOURCE = "Generate";
  static final String KEYS = "EverNewKeys";
  static final String TIERED_WINDOW = "TieredWindow";
  static final String TREND_AGGREGATE = "TrendAggregate";
  static final String FILTER = "Filter";
  static final String JOIN = "Join";

  /** The events read from the source. */
  public static final String EVENTS = "events";

  private SoakPipeline() {}

  /** Adds the soak job to {@code pipeline}. */
  public static void addTo(Pipeline pipeline, SoakConfig config) {
    addTo(pipeline, config, config.source());
  }

  /**
   * Adds the soak job to {@code pipeline}, reading the events of {@code config} from {@code
   * source}.
   */
  static void addTo(Pipeline pipeline, SoakConfig config, Read.Unbounded<LateEvent> source) {
    KvCoder<String, Long> valueCoder = KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of());
    PCollection<KV<String, Long>> values =
        pipeline
            .apply(SOURCE, source)
            .apply(KEYS, ParDo.of(new KeyFn(config)))
            .setCoder(valueCoder);

    TieredWindow.Result<String, Long, Long> tiered =
        values.apply(
            TIERED_WINDOW,
            TieredWindow.of(FixedWindows.of(config.window()), new CountValues())
                .withAllowedLateness(config.allowedLateness())
                .withStore(config.storeUri())
                .withMemoryBucket(4, 4_096)
                .withOutputCoder(VarLongCoder.of())
                .withDeadLetters());
    tiered.results().apply(counting(TIERED_WINDOW), ParDo.of(new CountFn<>("windowCounts")));
    tiered.deadLetters().apply("Count dead letters", ParDo.of(new CountFn<>("deadLetters")));

    long windowMillis = config.window().getMillis();
    Workload workload =
        Workload.parse(
            String.format(
                "QUERY runs RETURN COUNT(*) PATTERN E+ GROUPBY key WITHIN %d ms SLIDE %d ms",
                windowMillis, windowMillis));
    TrendAggregate.Result trends =
        values
            .apply("ToTrendEvents", ParDo.of(new ToTrendEventFn()))
            .apply(
                TREND_AGGREGATE,
                TrendAggregate.of(workload)
                    .withAllowedLateness(config.allowedLateness())
                    .withRetainedEventsIn(config.storeUri(), 4));
    trends.results().apply(counting(TREND_AGGREGATE), ParDo.of(new CountFn<>("trendResults")));
    trends.deadLetters().apply("Count trend dead letters", ParDo.of(new CountFn<>("deadLetters")));

    PCollection<KV<String, Long>> even =
        values.apply(
            FILTER,
            AggregateFilter.by((KV<String, Long> v) -> v.getValue() % 2 == 0)
                .withAllowedLateness(config.allowedLateness()));
    even.apply(counting(FILTER), ParDo.of(new CountFn<>("filtered")));

    PCollection<KV<KV<String, Long>, KV<String, Long>>> joined =
        even.apply(
            JOIN,
            AggregateJoin.with(tiered.results())
                .within(WindowSpec.tumbling(config.window()))
                .keyedBy(
                    (KV<String, Long> v) -> v.getKey(),
                    (KV<String, Long> count) -> count.getKey(),
                    StringUtf8Coder.of())
                .withAllowedLateness(config.allowedLateness())
                .where((v, count) -> true));
    joined.apply(counting(JOIN), ParDo.of(new CountFn<>("joined")));
  }

  /** The name of the step that counts {@code step}'s outputs. */
  static String counting(String step) {
    return "Count " + step;
  }

  /** An event's value under its key, at its event time (the source's timestamp). */
  private static final class KeyFn extends DoFn<LateEvent, KV<String, Long>> {
    private final SoakConfig config;
    private final Counter events = Metrics.counter(NAMESPACE, EVENTS);

    KeyFn(SoakConfig config) {
      this.config = config;
    }

    @ProcessElement
    public void process(@Element LateEvent e, OutputReceiver<KV<String, Long>> out) {
      events.inc();
      out.output(KV.of(config.keyOf(e), e.value()));
    }
  }

  /** TieredWindow's function: how many values a key has in the window. */
  private static final class CountValues implements WindowFunction<String, Long, Long> {
    @Override
    public Long apply(String key, BoundedWindow window, Iterable<Long> values) {
      long n = 0;
      for (Long ignored : values) {
        n++;
      }
      return n;
    }
  }

  /** A trend event of type E with the key and value, at the element's timestamp. */
  private static final class ToTrendEventFn extends DoFn<KV<String, Long>, Event> {
    @ProcessElement
    public void process(
        @Element KV<String, Long> v,
        @Timestamp org.joda.time.Instant at,
        OutputReceiver<Event> out) {
      out.output(Event.of("E", at.getMillis(), "key", v.getKey(), "value", v.getValue()));
    }
  }

  /** Counts a step's outputs in counter {@code name}. */
  private static final class CountFn<T> extends DoFn<T, Void> {
    private final Counter counter;

    CountFn(String name) {
      counter = Metrics.counter(NAMESPACE, name);
    }

    @ProcessElement
    public void process() {
      counter.inc();
    }
  }
}
