package dev.eventide.tiering;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LateEventGenerator;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.testing.streams.LateEventStreams;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.SimpleFunction;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.transforms.windowing.WindowFn;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Runs {@link TieredWindow} variants and Beam's native windowing on the same late stream in one
 * pipeline, and checks inside the pipeline that each variant has, per key and window, the native
 * on-time pane and the native final result, with well-formed panes of its own.
 */
final class TieredVsNative {

  /**
   * A window's values summarised so that any difference in the multiset shows: count and sorted.
   */
  static final class Summary implements WindowFunction<Integer, Long, String> {
    @Override
    public String apply(Integer key, BoundedWindow window, Iterable<Long> values) {
      List<Long> sorted = new ArrayList<>();
      values.forEach(sorted::add);
      sorted.sort(Comparator.nullsFirst(Comparator.naturalOrder()));
      return sorted.size() + ":" + sorted;
    }
  }

  /** A variant of {@link TieredWindow} under test. */
  record Variant(
      String name,
      long memoryElements,
      long memoryBytes,
      double bootstrap,
      boolean prestaging,
      boolean ahead,
      double stalenessBound)
      implements Serializable {
    Variant(
        String name,
        long memoryElements,
        long memoryBytes,
        double bootstrap,
        boolean prestaging,
        boolean ahead) {
      this(name, memoryElements, memoryBytes, bootstrap, prestaging, ahead, 0);
    }

    TieredWindow<Integer, Long, String> apply(
        WindowFn<Object, ?> windows, Duration lateness, String store) {
      TieredWindow<Integer, Long, String> window =
          TieredWindow.of(windows, new Summary())
              .withAllowedLateness(lateness)
              .withStore(store)
              .withMemoryBucket(memoryElements, memoryBytes)
              .withBootstrapFraction(bootstrap)
              .withPrestaging(prestaging)
              .withPrestagingAhead(ahead);
      return stalenessBound > 0 ? window.withStalenessBound(stalenessBound) : window;
    }

    /** Behind a lateness gate, whose watermark on Flink may reach the windows after its values. */
    boolean gated() {
      return stalenessBound > 0;
    }
  }

  /** From everything in the store to everything in memory. */
  static final List<Variant> VARIANTS =
      List.of(
          new Variant("store-only", 0, 1 << 20, 0, true, false),
          new Variant("one-element", 1, 1 << 20, 0, true, false),
          new Variant("seven-bootstrap", 7, 1 << 20, 0.3, false, false),
          new Variant("forty-bytes-ahead", 1000, 40, 0, true, true),
          new Variant("memory", Long.MAX_VALUE, Long.MAX_VALUE, 0, true, false));

  private TieredVsNative() {}

  /**
   * Options for a comparison on the runner: on Flink the source's watermark is polled every 5 ms,
   * so that a gated replay's watermarks go out (and its gate opens) promptly, and bundles hold one
   * element.
   */
  static PipelineOptions options(TestRunner runner) {
    PipelineOptions options = runner.options(1);
    if (runner == TestRunner.FLINK) {
      options.as(FlinkPipelineOptions.class).setAutoWatermarkInterval(5L);
      // TieredWindow keys each value by its window in a DoFn step before its state: a bundle of
      // one passes each watermark on before the values after it, so late values stay late there.
      options.as(FlinkPipelineOptions.class).setMaxBundleSize(1L);
    }
    return options;
  }

  /**
   * The events keyed, read as a {@code TestStream} on the DirectRunner, and from a gated replay
   * elsewhere (Flink's {@code TestStream} may deliver later events before a watermark; the replay
   * waits for each watermark to reach its consumers, so late events are late whatever the load).
   */
  static PCollection<KV<Integer, Long>> read(
      Pipeline p, TestRunner runner, LateEventGenerator generator) {
    return read(p, runner, generator, false);
  }

  /**
   * {@link #read}; with {@code someNulls}, a third of key 0's values are null (a nullable value
   * coder), so that a comparison also shows that null values are values.
   */
  static PCollection<KV<Integer, Long>> read(
      Pipeline p, TestRunner runner, LateEventGenerator generator, boolean someNulls) {
    PCollection<LateEvent> events =
        runner.honorsTestStreamWatermarks()
            ? p.apply(LateEventStreams.testStream(generator))
            : p.apply(LateEventStreams.gatedReplay(generator));
    return someNulls ? keyedWithNulls(events) : keyed(events);
  }

  /** The events as key and value. */
  static PCollection<KV<Integer, Long>> keyed(PCollection<LateEvent> events) {
    return events
        .apply(
            "Key",
            MapElements.into(
                    TypeDescriptors.kvs(TypeDescriptors.integers(), TypeDescriptors.longs()))
                .via((LateEvent e) -> KV.of(e.key(), e.value())))
        .setCoder(KvCoder.of(VarIntCoder.of(), VarLongCoder.of()));
  }

  /** The events as key and value, every third value of key 0 null. */
  static PCollection<KV<Integer, Long>> keyedWithNulls(PCollection<LateEvent> events) {
    return events
        .apply(
            "Key",
            MapElements.into(
                    TypeDescriptors.kvs(TypeDescriptors.integers(), TypeDescriptors.longs()))
                .via(
                    (LateEvent e) ->
                        KV.of(e.key(), e.key() == 0 && e.value() % 3 == 0 ? null : e.value())))
        .setCoder(KvCoder.of(VarIntCoder.of(), NullableCoder.of(VarLongCoder.of())));
  }

  /**
   * Beam's windowing of {@code input} (accumulating panes, {@code lateness}), each pane summarised.
   * Nullable values are grouped each in a list of one: Beam's {@code GroupByKey} on Flink cannot
   * hold a null value (docs/runner-facts.md).
   */
  static PCollection<KV<Integer, String>> nativeSummaries(
      PCollection<KV<Integer, Long>> input, WindowFn<Object, ?> windows, Duration lateness) {
    Coder<Long> valueCoder = ((KvCoder<Integer, Long>) input.getCoder()).getValueCoder();
    return input
        .apply(
            "Native wrap",
            MapElements.via(
                new SimpleFunction<KV<Integer, Long>, KV<Integer, List<Long>>>() {
                  @Override
                  public KV<Integer, List<Long>> apply(KV<Integer, Long> kv) {
                    return KV.of(kv.getKey(), Collections.singletonList(kv.getValue()));
                  }
                }))
        .setCoder(KvCoder.of(VarIntCoder.of(), ListCoder.of(valueCoder)))
        .apply(
            "Native window",
            Window.<KV<Integer, List<Long>>>into(windows)
                .withAllowedLateness(lateness)
                .accumulatingFiredPanes())
        .apply("Native group", GroupByKey.create())
        .apply(
            "Native summary",
            MapElements.via(
                new SimpleFunction<KV<Integer, Iterable<List<Long>>>, KV<Integer, String>>() {
                  @Override
                  public KV<Integer, String> apply(KV<Integer, Iterable<List<Long>>> kv) {
                    List<Long> values = new ArrayList<>();
                    kv.getValue().forEach(values::addAll);
                    return KV.of(kv.getKey(), new Summary().apply(kv.getKey(), null, values));
                  }
                }))
        .setCoder(KvCoder.of(VarIntCoder.of(), StringUtf8Coder.of()));
  }

  /**
   * Adds the native reference and the variants to the pipeline with the comparison. With {@code
   * strictOnTime} false, a window that has an on-time pane on one side only is accepted: Beam on
   * Flink labels the first pane of a window ON_TIME when the operator's output watermark lags its
   * input watermark, even if every value of the window arrived behind the input watermark (the
   * DirectRunner labels it LATE, as {@link TieredWindow} does).
   */
  static PCollection<KV<String, String>> compare(
      Pipeline p,
      PCollection<KV<Integer, Long>> input,
      WindowFn<Object, ?> windows,
      Duration lateness,
      List<Variant> variants,
      String store,
      boolean strictOnTime) {
    List<PCollection<KV<String, String>>> observed = new ArrayList<>();
    observed.add(
        nativeSummaries(input, windows, lateness)
            .apply("Observe native", ParDo.of(new Observe("native"))));
    for (Variant variant : variants) {
      observed.add(
          input
              .apply(variant.name(), variant.apply(windows, lateness, store))
              .apply("Observe " + variant.name(), ParDo.of(new Observe(variant.name()))));
    }
    PCollection<KV<String, String>> all =
        PCollectionList.of(observed)
            .apply(Flatten.pCollections())
            .apply(Window.into(new GlobalWindows()));
    PAssert.that(all)
        .satisfies(
            observations -> {
              List<String> differences = differences(observations, variants, strictOnTime);
              assertTrue(
                  differences.isEmpty(),
                  differences.size()
                      + " differences from native windowing, first ones:\n"
                      + String.join(
                          "\n", differences.subList(0, Math.min(10, differences.size()))));
              return null;
            });
    return all;
  }

  /** One output: its source, pane and value, keyed by key and window. */
  static final class Observe extends DoFn<KV<Integer, String>, KV<String, String>> {
    private final String source;

    Observe(String source) {
      this.source = source;
    }

    @ProcessElement
    public void process(
        @Element KV<Integer, String> kv,
        BoundedWindow window,
        PaneInfo pane,
        @Timestamp Instant timestamp,
        OutputReceiver<KV<String, String>> out) {
      out.outputWithTimestamp(
          KV.of(
              kv.getKey() + "@" + window,
              String.join(
                  "|",
                  source,
                  pane.getTiming().toString(),
                  Long.toString(pane.getIndex()),
                  Boolean.toString(pane.isFirst()),
                  Boolean.toString(timestamp.equals(window.maxTimestamp())),
                  kv.getValue())),
          timestamp);
    }
  }

  private record Pane(String timing, long index, boolean first, boolean endOfWindow, String value) {
    long count() {
      return Long.parseLong(value.substring(0, value.indexOf(':')));
    }
  }

  static List<String> differences(
      Iterable<KV<String, String>> observations, List<Variant> variants, boolean strictOnTime) {
    Map<String, Map<String, List<Pane>>> byWindow = new TreeMap<>();
    for (KV<String, String> o : observations) {
      String[] f = o.getValue().split("\\|", 6);
      byWindow
          .computeIfAbsent(o.getKey(), w -> new HashMap<>())
          .computeIfAbsent(f[0], s -> new ArrayList<>())
          .add(
              new Pane(
                  f[1],
                  Long.parseLong(f[2]),
                  Boolean.parseBoolean(f[3]),
                  Boolean.parseBoolean(f[4]),
                  f[5]));
    }
    List<String> differences = new ArrayList<>();
    byWindow.forEach(
        (window, sources) -> {
          List<Pane> reference = sources.getOrDefault("native", List.of());
          for (Variant variant : variants) {
            List<Pane> panes = sources.getOrDefault(variant.name(), List.of());
            String where = variant.name() + " " + window + ": ";
            if (!finalValue(panes).equals(finalValue(reference))) {
              differences.add(
                  where + "final " + finalValue(panes) + " but native " + finalValue(reference));
            }
            String onTime = onTime(panes);
            String nativeOnTime = onTime(reference);
            boolean labelledOnOneSide = onTime.equals("none") || nativeOnTime.equals("none");
            boolean aheadOfTheGate =
                !strictOnTime && variant.gated() && holdsAll(onTime, nativeOnTime);
            if (!onTime.equals(nativeOnTime)
                && (strictOnTime || !labelledOnOneSide)
                && !aheadOfTheGate) {
              differences.add(
                  where + "on time " + onTime(panes) + " but native " + onTime(reference));
            }
            panes.sort((a, b) -> Long.compare(a.index(), b.index()));
            for (int i = 0; i < panes.size(); i++) {
              Pane pane = panes.get(i);
              if (pane.index() != i || pane.first() != (i == 0) || !pane.endOfWindow()) {
                differences.add(where + "ill-formed pane " + i + ": " + pane);
              }
              if (i > 0 && pane.timing().equals("ON_TIME")) {
                differences.add(where + "on-time pane after the first: " + pane);
              }
            }
          }
        });
    return differences;
  }

  /**
   * Whether a summary holds every value of another: on Flink the windows behind a lateness gate may
   * take as on time values the gate met late, never fewer than Beam's own on-time pane.
   */
  private static boolean holdsAll(String summary, String other) {
    if (summary.equals("none") || other.equals("none")) {
      return false;
    }
    List<String> rest = new ArrayList<>(values(summary));
    for (String v : values(other)) {
      if (!rest.remove(v)) {
        return false;
      }
    }
    return true;
  }

  private static List<String> values(String summary) {
    String list = summary.substring(summary.indexOf('[') + 1, summary.length() - 1);
    return list.isBlank() ? List.of() : List.of(list.split(", "));
  }

  private static String finalValue(List<Pane> panes) {
    return panes.stream()
        .max((a, b) -> Long.compare(a.count(), b.count()))
        .map(Pane::value)
        .orElse("none");
  }

  private static String onTime(List<Pane> panes) {
    return panes.stream()
        .filter(p -> p.timing().equals("ON_TIME"))
        .map(Pane::value)
        .findFirst()
        .orElse("none");
  }

  /** A seeded late stream of a few hundred events over three keys. */
  static LateEventGenerator stream(long seed, double lateFraction) {
    return LateEventGenerator.builder()
        .setEvents(400)
        .setEventsPerWindow(40)
        .setWatermarkPeriod(Duration.standardSeconds(5))
        .setKeys(3)
        .setLateFraction(lateFraction)
        .setSeed(seed)
        .build();
  }
}
