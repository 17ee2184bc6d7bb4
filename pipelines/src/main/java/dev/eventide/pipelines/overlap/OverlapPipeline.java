package dev.eventide.pipelines.overlap;

import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LateEventGenerator;
import dev.eventide.pipelines.output.SortedTextFile;
import dev.eventide.pipelines.windows.WindowSteps;
import dev.eventide.transforms.AggregateFilter;
import dev.eventide.transforms.AggregateFlatMap;
import dev.eventide.transforms.AggregateJoin;
import dev.eventide.transforms.AggregateMap;
import dev.eventide.transforms.primitives.WindowSpec;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.FlatMapElements;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.transforms.join.CoGbkResult;
import org.apache.beam.sdk.transforms.join.CoGroupByKey;
import org.apache.beam.sdk.transforms.join.KeyedPCollectionTuple;
import org.apache.beam.sdk.transforms.windowing.TimestampCombiner;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionTuple;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * The semantic-overlap paper in one run: a small stream of {@code (key, value)} events with late
 * ones goes through Beam's native Filter, Map, FlatMap and windowed join (CoGroupByKey) and through
 * the Aggregate-built ones ({@link AggregateFilter}, {@link AggregateMap}, {@link
 * AggregateFlatMap}, {@link AggregateJoin}); each of the eight outputs is written, sorted, to
 * {@code <output>/<operator>-<native|aggregate>.txt} as {@code "<timestamp> <value>"} lines, for
 * {@link OverlapReport} to compare.
 *
 * <p>The operators: Filter keeps multiples of 3; Map squares the value; FlatMap emits the value's
 * decimal digits; the join pairs, per key and tumbling window of the stream's window length, an
 * even value (left) with a larger odd value (right).
 *
 * <p>What makes the two agree exactly on every runner, by the paper's and Eventide's semantics:
 * events later than the allowed lateness, judged by the watermark they arrived under, are set aside
 * before both (the Aggregate-built operators drop them, the native element-wise ones would keep
 * them: a difference by design, counted in {@code eventide.overlap/eventsBeyondAllowedLateness});
 * and the join reads only the events that arrive on time (with discarding panes, which pairs a late
 * tuple makes depends on the pane it lands in, and on Flink that depends on thread timing for the
 * native join as much as for the Aggregate one: docs/transforms.md).
 */
public final class OverlapPipeline {
  /** Namespace of the pipeline's Beam metrics. */
  public static final String METRICS_NAMESPACE = "eventide.overlap";

  /** The operators, in report order. */
  public static final List<String> OPERATORS = List.of("filter", "map", "flatmap", "join");

  static final SerializableFunction<KV<Integer, Long>, Boolean> MULTIPLE_OF_3 =
      e -> e.getValue() % 3 == 0;
  static final SerializableFunction<KV<Integer, Long>, KV<Integer, Long>> SQUARE =
      e -> KV.of(e.getKey(), e.getValue() * e.getValue());
  static final SerializableFunction<KV<Integer, Long>, Iterable<KV<Integer, Long>>> DIGITS =
      e -> {
        List<KV<Integer, Long>> digits = new ArrayList<>();
        for (char c : Long.toString(e.getValue()).toCharArray()) {
          if (c != '-') {
            digits.add(KV.of(e.getKey(), (long) (c - '0')));
          }
        }
        return digits;
      };
  static final AggregateJoin.Predicate<KV<Integer, Long>, KV<Integer, Long>> SMALLER_EVEN =
      (left, right) -> left.getValue() < right.getValue();

  private static final TypeDescriptor<KV<Integer, Long>> EVENT =
      TypeDescriptors.kvs(TypeDescriptors.integers(), TypeDescriptors.longs());
  private static final KvCoder<Integer, Long> EVENT_CODER =
      KvCoder.of(VarIntCoder.of(), VarLongCoder.of());

  private OverlapPipeline() {}

  /**
   * Adds the comparison to {@code pipeline}.
   *
   * @param events the stream; the join's window is its window length
   * @param allowedLateness the operators' allowed lateness
   * @param outputDirectory where the eight output files go
   */
  public static void build(
      Pipeline pipeline,
      LateEventGenerator events,
      Duration allowedLateness,
      String outputDirectory) {
    if (allowedLateness.isShorterThan(Duration.ZERO)) {
      throw new IllegalArgumentException(
          "allowedLateness must be >= 0, but was " + allowedLateness);
    }
    PCollectionTuple gated =
        pipeline
            .apply("ReadLateEvents", WindowSteps.read(pipeline, events))
            .apply(
                "SetAsideBeyondAllowedLateness",
                ParDo.of(new Gate(allowedLateness))
                    .withOutputTags(Gate.KEPT, TupleTagList.of(Gate.ON_TIME)));
    PCollection<KV<Integer, Long>> all = gated.get(Gate.KEPT).setCoder(EVENT_CODER);
    PCollection<KV<Integer, Long>> onTime = gated.get(Gate.ON_TIME).setCoder(EVENT_CODER);

    write(all.apply("NativeFilter", Filter.by(MULTIPLE_OF_3)), "filter-native", outputDirectory);
    write(
        all.apply(
            "AggregateFilter",
            AggregateFilter.by(MULTIPLE_OF_3).withAllowedLateness(allowedLateness)),
        "filter-aggregate",
        outputDirectory);
    write(
        all.apply("NativeMap", MapElements.into(EVENT).via(SQUARE)), "map-native", outputDirectory);
    write(
        all.apply(
            "AggregateMap",
            AggregateMap.into(EVENT).via(SQUARE).withAllowedLateness(allowedLateness)),
        "map-aggregate",
        outputDirectory);
    write(
        all.apply("NativeFlatMap", FlatMapElements.into(EVENT).via(DIGITS)),
        "flatmap-native",
        outputDirectory);
    write(
        all.apply(
            "AggregateFlatMap",
            AggregateFlatMap.into(EVENT).via(DIGITS).withAllowedLateness(allowedLateness)),
        "flatmap-aggregate",
        outputDirectory);

    WindowSpec windows = WindowSpec.tumbling(events.window());
    write(nativeJoin(onTime, windows), "join-native", outputDirectory);
    write(
        onTime
            .apply("JoinLeft", Filter.by(OverlapPipeline::isLeft))
            .apply(
                "AggregateJoin",
                AggregateJoin.with(
                        onTime.apply("JoinRight", Filter.by((KV<Integer, Long> e) -> !isLeft(e))))
                    .within(windows)
                    .keyedBy((KV<Integer, Long> e) -> e.getKey(), KV::getKey, VarIntCoder.of())
                    .where(SMALLER_EVEN)),
        "join-aggregate",
        outputDirectory);
  }

  static boolean isLeft(KV<Integer, Long> event) {
    return event.getValue() % 2 == 0;
  }

  /** Beam's windowed join: both sides in the windows, CoGroupByKey, the pairs that match. */
  private static PCollection<KV<KV<Integer, Long>, KV<Integer, Long>>> nativeJoin(
      PCollection<KV<Integer, Long>> events, WindowSpec windows) {
    PCollection<KV<Integer, Long>> windowed =
        events.apply(
            "NativeJoinWindows",
            Window.<KV<Integer, Long>>into(windows.windowFn())
                .withTimestampCombiner(TimestampCombiner.END_OF_WINDOW));
    TupleTag<KV<Integer, Long>> left = new TupleTag<>();
    TupleTag<KV<Integer, Long>> right = new TupleTag<>();
    return KeyedPCollectionTuple.of(
            left,
            windowed
                .apply("NativeJoinLeft", Filter.by(OverlapPipeline::isLeft))
                .apply(
                    "KeyLeft",
                    WithKeys.of((KV<Integer, Long> e) -> e.getKey())
                        .withKeyType(TypeDescriptors.integers())))
        .and(
            right,
            windowed
                .apply("NativeJoinRight", Filter.by((KV<Integer, Long> e) -> !isLeft(e)))
                .apply(
                    "KeyRight",
                    WithKeys.of((KV<Integer, Long> e) -> e.getKey())
                        .withKeyType(TypeDescriptors.integers())))
        .apply("NativeJoin", CoGroupByKey.create())
        .apply("NativePairs", ParDo.of(new Pairs(left, right)))
        .setCoder(KvCoder.of(EVENT_CODER, EVENT_CODER));
  }

  private static final class Pairs
      extends DoFn<KV<Integer, CoGbkResult>, KV<KV<Integer, Long>, KV<Integer, Long>>> {
    private final TupleTag<KV<Integer, Long>> left;
    private final TupleTag<KV<Integer, Long>> right;

    Pairs(TupleTag<KV<Integer, Long>> left, TupleTag<KV<Integer, Long>> right) {
      this.left = left;
      this.right = right;
    }

    @ProcessElement
    public void process(
        @Element KV<Integer, CoGbkResult> group,
        OutputReceiver<KV<KV<Integer, Long>, KV<Integer, Long>>> out) {
      for (KV<Integer, Long> l : group.getValue().getAll(left)) {
        for (KV<Integer, Long> r : group.getValue().getAll(right)) {
          if (SMALLER_EVEN.matches(l, r)) {
            out.output(KV.of(l, r));
          }
        }
      }
    }
  }

  /** Writes every element of {@code outputs} as a {@code "<timestamp> <value>"} line, sorted. */
  private static <T> void write(PCollection<T> outputs, String name, String directory) {
    outputs
        .apply(name + "/Line", ParDo.of(new ToLine<T>()))
        .setCoder(StringUtf8Coder.of())
        .apply(name + "/Write", SortedTextFile.write(name, directory));
  }

  private static final class ToLine<T> extends DoFn<T, String> {
    @ProcessElement
    public void process(
        @Element T value, @Timestamp Instant timestamp, OutputReceiver<String> out) {
      out.output(timestamp + " " + format(value));
    }

    private static String format(Object value) {
      if (value instanceof KV<?, ?> kv) {
        if (kv.getKey() instanceof KV<?, ?>) {
          return format(kv.getKey()) + " + " + format(kv.getValue());
        }
        return kv.getKey() + ":" + kv.getValue();
      }
      return String.valueOf(value);
    }
  }

  /**
   * Sets aside events later than the allowed lateness by the watermark they arrived under (counted,
   * never silently lost), and passes the ones that arrived on time to a second output too.
   */
  private static final class Gate extends DoFn<LateEvent, KV<Integer, Long>> {
    static final TupleTag<KV<Integer, Long>> KEPT = new TupleTag<>() {};
    static final TupleTag<KV<Integer, Long>> ON_TIME = new TupleTag<>() {};

    private final Counter read = Metrics.counter(METRICS_NAMESPACE, "eventsRead");
    private final Counter late = Metrics.counter(METRICS_NAMESPACE, "eventsLate");
    private final Counter beyond =
        Metrics.counter(METRICS_NAMESPACE, "eventsBeyondAllowedLateness");
    private final Duration allowedLateness;

    Gate(Duration allowedLateness) {
      this.allowedLateness = allowedLateness;
    }

    @ProcessElement
    public void process(@Element LateEvent event, MultiOutputReceiver out) {
      read.inc();
      // The Aggregate-built operators' rule for a tuple's 1 ms window [t, t + 1 ms).
      if (event.eventTime().plus(allowedLateness).isBefore(event.watermark())) {
        beyond.inc();
        return;
      }
      KV<Integer, Long> kv = KV.of(event.key(), event.value());
      out.get(KEPT).output(kv);
      if (event.isLate()) {
        late.inc();
      } else {
        out.get(ON_TIME).output(kv);
      }
    }
  }
}
