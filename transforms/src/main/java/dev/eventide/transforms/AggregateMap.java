package dev.eventide.transforms;

import java.util.Collections;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.joda.time.Duration;

/**
 * Map M(S, f_M) from the windowed Aggregate alone: the FlatMap of {@code t -> [f_M(t)]}, that is
 * E_FM then X. Each output keeps its input's timestamp, with the input's multiplicity (10,000
 * identical inputs mapped to one value give 10,000 outputs).
 *
 * <pre>{@code
 * PCollection<Integer> lengths =
 *     words.apply(AggregateMap.into(TypeDescriptors.integers()).via(String::length));
 * }</pre>
 *
 * <p>Semantic differences from Beam's {@code MapElements} are those of {@link AggregateFlatMap}:
 * output after the watermark, inputs later than L dropped, late panes, δ windows.
 */
public final class AggregateMap<InputT, OutputT>
    extends PTransform<PCollection<InputT>, PCollection<OutputT>> {
  private final AggregateFlatMap<InputT, OutputT> flatMap;

  private AggregateMap(AggregateFlatMap<InputT, OutputT> flatMap) {
    this.flatMap = flatMap;
  }

  /** Returns a builder of a Map whose outputs have type {@code outputType}. */
  public static <OutputT> Into<OutputT> into(TypeDescriptor<OutputT> outputType) {
    return new Into<>(outputType);
  }

  /** The second half of {@code into(type).via(fn)}. */
  public static final class Into<OutputT> {
    private final TypeDescriptor<OutputT> outputType;

    private Into(TypeDescriptor<OutputT> outputType) {
      this.outputType = outputType;
    }

    /** Returns a Map applying {@code fn} to each input. */
    public <InputT> AggregateMap<InputT, OutputT> via(SerializableFunction<InputT, OutputT> fn) {
      return new AggregateMap<>(
          AggregateFlatMap.into(outputType)
              .via((InputT t) -> Collections.singletonList(fn.apply(t))));
    }
  }

  /** Returns the same Map with allowed lateness L (≥ 0). */
  public AggregateMap<InputT, OutputT> withAllowedLateness(Duration allowedLateness) {
    return new AggregateMap<>(flatMap.withAllowedLateness(allowedLateness));
  }

  /** Returns the same Map with its outputs encoded by {@code coder}. */
  public AggregateMap<InputT, OutputT> withOutputCoder(Coder<OutputT> coder) {
    return new AggregateMap<>(flatMap.withOutputCoder(coder));
  }

  @Override
  public PCollection<OutputT> expand(PCollection<InputT> input) {
    return input.apply("FlatMapOfOne", flatMap);
  }
}
