package dev.eventide.transforms;

import dev.eventide.transforms.internal.Checks;
import dev.eventide.transforms.primitives.Embed;
import dev.eventide.transforms.primitives.Unwrap;
import org.apache.beam.sdk.coders.CannotProvideCoderException;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.joda.time.Duration;

/**
 * FlatMap FM(S, f_FM) from the windowed Aggregate alone: E_FM then X (the paper's Theorem 1 and
 * Listing 3). Each output keeps its input's timestamp, with the input's multiplicity.
 *
 * <pre>{@code
 * PCollection<String> words =
 *     lines.apply(AggregateFlatMap.into(TypeDescriptors.strings())
 *         .via((String line) -> Arrays.asList(line.split(" "))));
 * }</pre>
 *
 * <p>Semantic differences from Beam's {@code FlatMapElements}: outputs appear only once the
 * watermark passes the input's timestamp; an input later than the allowed lateness L is dropped
 * (Beam's keeps it); an input late within L comes out in a late pane. Outputs are in δ (1 ms)
 * windows. Cost: three keyed steps (E, X's loop, X's emit) and one loop iteration per output.
 */
public final class AggregateFlatMap<InputT, OutputT>
    extends PTransform<PCollection<InputT>, PCollection<OutputT>> {
  private final TypeDescriptor<OutputT> outputType;
  private final SerializableFunction<InputT, Iterable<OutputT>> fn;
  private final Coder<OutputT> outputCoder;
  private final Duration allowedLateness;

  AggregateFlatMap(
      TypeDescriptor<OutputT> outputType,
      SerializableFunction<InputT, Iterable<OutputT>> fn,
      Coder<OutputT> outputCoder,
      Duration allowedLateness) {
    this.outputType = outputType;
    this.fn = fn;
    this.outputCoder = outputCoder;
    this.allowedLateness = allowedLateness;
  }

  /** Returns a builder of a FlatMap whose outputs have type {@code outputType}. */
  public static <OutputT> Into<OutputT> into(TypeDescriptor<OutputT> outputType) {
    return new Into<>(outputType);
  }

  /** The second half of {@code into(type).via(fn)}. */
  public static final class Into<OutputT> {
    private final TypeDescriptor<OutputT> outputType;

    private Into(TypeDescriptor<OutputT> outputType) {
      this.outputType = outputType;
    }

    /** Returns a FlatMap applying {@code fn} to each input. */
    public <InputT> AggregateFlatMap<InputT, OutputT> via(
        SerializableFunction<InputT, Iterable<OutputT>> fn) {
      return new AggregateFlatMap<>(outputType, fn, null, Duration.ZERO);
    }
  }

  /** Returns the same FlatMap with allowed lateness L (≥ 0). */
  public AggregateFlatMap<InputT, OutputT> withAllowedLateness(Duration allowedLateness) {
    return new AggregateFlatMap<>(
        outputType, fn, outputCoder, Checks.checkLateness(allowedLateness));
  }

  /** Returns the same FlatMap with its outputs encoded by {@code coder}. */
  public AggregateFlatMap<InputT, OutputT> withOutputCoder(Coder<OutputT> coder) {
    return new AggregateFlatMap<>(outputType, fn, coder, allowedLateness);
  }

  @Override
  public PCollection<OutputT> expand(PCollection<InputT> input) {
    Coder<OutputT> coder = outputCoder;
    if (coder == null) {
      try {
        coder = input.getPipeline().getCoderRegistry().getCoder(outputType);
      } catch (CannotProvideCoderException e) {
        throw new IllegalArgumentException(
            "cannot infer a coder for "
                + outputType
                + "; set one with withOutputCoder(coder) ("
                + e.getMessage()
                + ")",
            e);
      }
    }
    Checks.checkTupleCoder(input.getCoder(), "the input");
    Checks.checkTupleCoder(coder, "the output");
    return input
        .apply("E_FM", Embed.flatMap(fn, coder).withAllowedLateness(allowedLateness))
        .apply("X", Unwrap.<OutputT>create().withAllowedLateness(allowedLateness));
  }

  @Override
  public void populateDisplayData(DisplayData.Builder builder) {
    super.populateDisplayData(builder);
    builder.add(DisplayData.item("allowedLateness", allowedLateness).withLabel("L"));
  }
}
