package dev.eventide.transforms;

import dev.eventide.transforms.internal.Checks;
import java.util.Collections;
import java.util.List;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;

/**
 * Filter F(S, f_C) from the windowed Aggregate alone: the FlatMap of {@code t -> f_C(t) ? [t] :
 * []}, that is E_FM then X. Kept tuples keep their timestamps and multiplicity.
 *
 * <pre>{@code
 * PCollection<Integer> evens = numbers.apply(AggregateFilter.by((Integer x) -> x % 2 == 0));
 * }</pre>
 *
 * <p>Semantic differences from Beam's {@code Filter}: a tuple is emitted only once the watermark
 * passes its timestamp; a tuple later than the allowed lateness L is dropped, where Beam's Filter
 * keeps it; a tuple late within L is emitted in a late pane. Outputs are in δ (1 ms) windows.
 */
public final class AggregateFilter<T> extends PTransform<PCollection<T>, PCollection<T>> {
  private final SerializableFunction<T, Boolean> predicate;
  private final Duration allowedLateness;

  private AggregateFilter(SerializableFunction<T, Boolean> predicate, Duration allowedLateness) {
    this.predicate = predicate;
    this.allowedLateness = allowedLateness;
  }

  /** Returns a Filter that keeps the tuples satisfying {@code predicate}. */
  public static <T> AggregateFilter<T> by(SerializableFunction<T, Boolean> predicate) {
    return new AggregateFilter<>(predicate, Duration.ZERO);
  }

  /** Returns the same Filter with allowed lateness L (≥ 0). */
  public AggregateFilter<T> withAllowedLateness(Duration allowedLateness) {
    return new AggregateFilter<>(predicate, Checks.checkLateness(allowedLateness));
  }

  @Override
  public PCollection<T> expand(PCollection<T> input) {
    SerializableFunction<T, Boolean> p = predicate;
    return input.apply(
        "FlatMapOfZeroOrOne",
        AggregateFlatMap.<T>into(input.getTypeDescriptor())
            .via((T t) -> p.apply(t) ? Collections.singletonList(t) : List.<T>of())
            .withOutputCoder(input.getCoder())
            .withAllowedLateness(allowedLateness));
  }
}
