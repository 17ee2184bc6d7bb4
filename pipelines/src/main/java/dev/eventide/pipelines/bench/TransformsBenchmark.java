package dev.eventide.pipelines.bench;

import dev.eventide.runtime.JobMetrics;
import dev.eventide.transforms.AggregateFilter;
import dev.eventide.transforms.AggregateFlatMap;
import dev.eventide.transforms.AggregateJoin;
import dev.eventide.transforms.AggregateMap;
import dev.eventide.transforms.primitives.Aggregate;
import dev.eventide.transforms.primitives.Embed;
import dev.eventide.transforms.primitives.Unwrap;
import dev.eventide.transforms.primitives.WindowSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.io.GenerateSequence;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Filter;
import org.apache.beam.sdk.transforms.FlatMapElements;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.transforms.WithTimestamps;
import org.apache.beam.sdk.transforms.join.CoGbkResult;
import org.apache.beam.sdk.transforms.join.CoGroupByKey;
import org.apache.beam.sdk.transforms.join.KeyedPCollectionTuple;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TupleTag;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Throughput of Filter, Map, FlatMap (fan-out 1, 8, 64) and a windowed Join in four renderings,
 * side by side on one runner: Beam's native transform (D), the Aggregate with Loop (A), the
 * Aggregate-only unrolled form (U), and the relaxed Aggregate A+ that may emit many outputs. Each
 * variant reads the same generated stream (a sequence, four events per millisecond), runs to the
 * end of its input, and counts its outputs in a metric; the counts must agree across variants.
 */
public final class TransformsBenchmark {
  private static final String NAMESPACE = "eventide.bench";
  private static final WindowSpec JOIN_WINDOWS = WindowSpec.tumbling(Duration.millis(100));

  /** One measured run. */
  public record Result(
      String runner, String operator, String variant, long events, long outputs, double seconds) {
    public double eventsPerSecond() {
      return events / seconds;
    }
  }

  private TransformsBenchmark() {}

  /** The operators measured, in table order. */
  public static List<String> operators() {
    return List.of("Filter", "Map", "FlatMap x1", "FlatMap x8", "FlatMap x64", "Join");
  }

  /** The variants measured, in table order. */
  public static List<String> variants() {
    return List.of("D", "A", "U", "A+");
  }

  private static final SerializableFunction<Long, Boolean> PREDICATE = x -> x % 3 != 0;
  private static final SerializableFunction<Long, Long> MAP = x -> (x * 31) % 100_003;

  private static SerializableFunction<Long, Iterable<Long>> fanOut(int n) {
    return x -> {
      List<Long> out = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        out.add(x * 64 + i);
      }
      return out;
    };
  }

  /** The transform for an operator and variant. */
  public static PTransform<PCollection<Long>, PCollection<?>> variant(
      String operator, String variant) {
    SerializableFunction<Long, Iterable<Long>> f;
    int bound;
    switch (operator) {
      case "Filter":
        f = x -> PREDICATE.apply(x) ? List.of(x) : List.of();
        bound = 1;
        break;
      case "Map":
        f = x -> List.of(MAP.apply(x));
        bound = 1;
        break;
      case "Join":
        return join(variant);
      default:
        bound = Integer.parseInt(operator.substring(operator.indexOf('x') + 1));
        f = fanOut(bound);
    }
    SerializableFunction<Long, Iterable<Long>> flatMap = f;
    switch (variant) {
      case "D":
        if (operator.equals("Filter")) {
          return of(in -> in.apply(Filter.by(PREDICATE)));
        }
        if (operator.equals("Map")) {
          return of(in -> in.apply(MapElements.into(TypeDescriptors.longs()).via(MAP)));
        }
        return of(in -> in.apply(FlatMapElements.into(TypeDescriptors.longs()).via(flatMap)));
      case "A":
        if (operator.equals("Filter")) {
          return of(in -> in.apply(AggregateFilter.by(PREDICATE)));
        }
        if (operator.equals("Map")) {
          return of(in -> in.apply(AggregateMap.into(TypeDescriptors.longs()).via(MAP)));
        }
        return of(in -> in.apply(AggregateFlatMap.into(TypeDescriptors.longs()).via(flatMap)));
      case "U":
        return of(
            in ->
                in.apply(Embed.flatMap(flatMap, VarLongCoder.of()))
                    .apply(Unwrap.<Long>unrolled(bound)));
      default:
        return of(
            in ->
                in.apply(
                    Aggregate.within(WindowSpec.delta())
                        .keyedBy((Long x) -> x)
                        .withKeyCoder(VarLongCoder.of())
                        .viaMultiOutput(
                            (window, x, copies) -> {
                              List<Long> out = new ArrayList<>();
                              for (int c = 0; c < copies.size(); c++) {
                                flatMap.apply(x).forEach(out::add);
                              }
                              return out;
                            })
                        .withOutputCoder(VarLongCoder.of())));
    }
  }

  private static PTransform<PCollection<Long>, PCollection<?>> join(String variant) {
    SerializableFunction<Long, Long> key = x -> (x / 2) % 1_000;
    AggregateJoin.Predicate<Long, Long> matches = (l, r) -> (l + r) % 7 != 0;
    switch (variant) {
      case "D":
        return of(
            in -> {
              PCollection<Long> windowed = in.apply(Window.into(JOIN_WINDOWS.windowFn()));
              TupleTag<Long> left = new TupleTag<>();
              TupleTag<Long> right = new TupleTag<>();
              return KeyedPCollectionTuple.of(
                      left,
                      windowed
                          .apply("Left", Filter.by((Long x) -> x % 2 == 0))
                          .apply("KeyLeft", WithKeys.of(key).withKeyType(TypeDescriptors.longs())))
                  .and(
                      right,
                      windowed
                          .apply("Right", Filter.by((Long x) -> x % 2 == 1))
                          .apply("KeyRight", WithKeys.of(key).withKeyType(TypeDescriptors.longs())))
                  .apply(CoGroupByKey.create())
                  .apply(ParDo.of(new NativePairs(left, right, matches)))
                  .setCoder(KvCoder.of(VarLongCoder.of(), VarLongCoder.of()));
            });
      case "A":
        return of(in -> left(in).apply("Join", aggregateJoin(in, key).where(matches)));
      case "U":
        // Each key has one left and one right tuple per window, so E_J embeds at most one pair.
        return of(
            in ->
                left(in)
                    .apply("Join", aggregateJoin(in, key).embed(matches))
                    .apply("X unrolled", Unwrap.<KV<Long, Long>>unrolled(1)));
      default:
        return of(in -> left(in).apply("Join", aggregateJoin(in, key).whereMultiOutput(matches)));
    }
  }

  /** The join's left input: the even values. */
  private static PCollection<Long> left(PCollection<Long> in) {
    return in.apply("Left", Filter.by((Long x) -> x % 2 == 0));
  }

  /** The join of the even values (the left input) with the odd ones. */
  private static AggregateJoin.Keyed<Long, Long, Long> aggregateJoin(
      PCollection<Long> in, SerializableFunction<Long, Long> key) {
    return AggregateJoin.with(in.apply("Right", Filter.by((Long x) -> x % 2 == 1)))
        .within(JOIN_WINDOWS)
        .keyedBy(key, key, VarLongCoder.of());
  }

  private static final class NativePairs extends DoFn<KV<Long, CoGbkResult>, KV<Long, Long>> {
    private final TupleTag<Long> left;
    private final TupleTag<Long> right;
    private final AggregateJoin.Predicate<Long, Long> matches;

    NativePairs(TupleTag<Long> left, TupleTag<Long> right, AggregateJoin.Predicate<Long, Long> m) {
      this.left = left;
      this.right = right;
      this.matches = m;
    }

    @ProcessElement
    public void process(@Element KV<Long, CoGbkResult> group, OutputReceiver<KV<Long, Long>> out) {
      for (long l : group.getValue().getAll(left)) {
        for (long r : group.getValue().getAll(right)) {
          if (matches.matches(l, r)) {
            out.output(KV.of(l, r));
          }
        }
      }
    }
  }

  private static PTransform<PCollection<Long>, PCollection<?>> of(
      SerializableFunction<PCollection<Long>, PCollection<?>> body) {
    return new PTransform<>() {
      @Override
      public PCollection<?> expand(PCollection<Long> input) {
        return body.apply(input);
      }
    };
  }

  /** Runs one variant over {@code events} generated events and measures it. */
  public static Result run(
      String runnerName,
      Function<String, PipelineOptions> options,
      String operator,
      String variant,
      PTransform<PCollection<Long>, PCollection<?>> transform,
      long events) {
    Pipeline p = Pipeline.create(options.apply(operator + "-" + variant));
    PCollection<?> out =
        p.apply("Generate", GenerateSequence.from(0).to(events))
            .apply("FourPerMillisecond", WithTimestamps.of((Long x) -> new Instant(x / 4)))
            .apply(operator + " " + variant, transform);
    out.apply("CountOutputs", ParDo.of(new CountFn<>()));
    long start = System.nanoTime();
    PipelineResult result = p.run();
    result.waitUntilFinish();
    double seconds = (System.nanoTime() - start) / 1e9;
    long outputs = JobMetrics.counter(result, NAMESPACE, "outputs");
    return new Result(runnerName, operator, variant, events, outputs, seconds);
  }

  private static final class CountFn<T> extends DoFn<T, Void> {
    private final org.apache.beam.sdk.metrics.Counter outputs =
        Metrics.counter(NAMESPACE, "outputs");

    @ProcessElement
    public void process() {
      outputs.inc();
    }
  }
}
