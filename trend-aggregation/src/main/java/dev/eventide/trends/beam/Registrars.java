package dev.eventide.trends.beam;

import dev.eventide.trends.Event;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.query.WorkloadChange;
import java.util.List;
import org.apache.beam.sdk.coders.CoderProvider;
import org.apache.beam.sdk.coders.CoderProviderRegistrar;
import org.apache.beam.sdk.coders.CoderProviders;
import org.apache.beam.sdk.schemas.SchemaProvider;
import org.apache.beam.sdk.schemas.SchemaProviderRegistrar;
import org.apache.beam.sdk.values.TypeDescriptor;

/**
 * Registers the coders and schemas of the trend types with Beam (through {@code
 * META-INF/services}), so a {@code PCollection<Event>} or {@code PCollection<TrendResult>} needs no
 * {@code setCoder}.
 */
public final class Registrars {
  private Registrars() {}

  /**
   * The coders of {@link Event}, {@link TrendResult}, {@link DeadLetter}, {@link WorkloadChange}
   * and {@link RefusedChange}.
   */
  public static final class Coders implements CoderProviderRegistrar {
    @Override
    public List<CoderProvider> getCoderProviders() {
      return List.of(
          CoderProviders.forCoder(TypeDescriptor.of(Event.class), EventCoder.of()),
          CoderProviders.forCoder(TypeDescriptor.of(TrendResult.class), TrendResultCoder.of()),
          CoderProviders.forCoder(TypeDescriptor.of(DeadLetter.class), DeadLetter.Coder.of()),
          CoderProviders.forCoder(
              TypeDescriptor.of(WorkloadChange.class), WorkloadChangeCoder.of()),
          CoderProviders.forCoder(
              TypeDescriptor.of(RefusedChange.class), RefusedChange.Coder.of()));
    }
  }

  /** {@link TrendSchemas}. */
  public static final class Schemas implements SchemaProviderRegistrar {
    @Override
    public List<SchemaProvider> getSchemaProviders() {
      return List.of(new TrendSchemas());
    }
  }
}
