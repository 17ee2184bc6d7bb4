package dev.eventide.transforms.primitives;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;

/**
 * The paper's E for FlatMap, E_FM(S, f_FM): one Aggregate over δ windows keyed by all attributes
 * whose f_O applies f_FM to the window's tuple and emits ⟨τ, T, −1⟩ when T is not empty (Theorem
 * 1). A δ window keyed by all attributes holds only identical tuples, so T is f_FM(t) for each of
 * its {@code m} copies; {@link Embedded} records {@code m} rather than repeating T. The output
 * keeps the input's timestamp (Lemma 2).
 *
 * <pre>{@code
 * PCollection<Embedded<String>> embedded =
 *     lines.apply(
 *         Embed.flatMap((String line) -> Arrays.asList(line.split(" ")), StringUtf8Coder.of()));
 * PCollection<String> words = embedded.apply(Unwrap.create());   // X: AggregateFlatMap's words
 * }</pre>
 */
public final class Embed<InputT, OutputT>
    extends PTransform<PCollection<InputT>, PCollection<Embedded<OutputT>>> {
  private final SerializableFunction<InputT, Iterable<OutputT>> flatMapFn;
  private final Coder<OutputT> itemCoder;
  private final Duration allowedLateness;

  private Embed(
      SerializableFunction<InputT, Iterable<OutputT>> flatMapFn,
      Coder<OutputT> itemCoder,
      Duration allowedLateness) {
    this.flatMapFn = flatMapFn;
    this.itemCoder = itemCoder;
    this.allowedLateness = allowedLateness;
  }

  /** Returns E_FM for {@code flatMapFn}, whose outputs {@code itemCoder} encodes. */
  public static <InputT, OutputT> Embed<InputT, OutputT> flatMap(
      SerializableFunction<InputT, Iterable<OutputT>> flatMapFn, Coder<OutputT> itemCoder) {
    return new Embed<>(flatMapFn, itemCoder, Duration.ZERO);
  }

  /** Returns the same E with allowed lateness L. */
  public Embed<InputT, OutputT> withAllowedLateness(Duration allowedLateness) {
    return new Embed<>(flatMapFn, itemCoder, allowedLateness);
  }

  @Override
  public PCollection<Embedded<OutputT>> expand(PCollection<InputT> input) {
    SerializableFunction<InputT, Iterable<OutputT>> f = flatMapFn;
    Aggregate<InputT, InputT, Embedded<OutputT>> embed =
        Aggregate.byAllAttributes(
                input.getCoder(),
                (window, tuple, copies) -> {
                  List<OutputT> items = new ArrayList<>();
                  f.apply(tuple).forEach(items::add);
                  return items.isEmpty()
                      ? Optional.empty()
                      : Optional.of(Embedded.of(items, copies.size()));
                },
                Embedded.EmbeddedCoder.of(itemCoder))
            .withAllowedLateness(allowedLateness)
            .countingLateness();
    return input.apply("EmbedFlatMap", embed);
  }
}
