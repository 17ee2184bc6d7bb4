package dev.eventide.transforms;

import org.apache.beam.sdk.coders.Coder;
import org.joda.time.Duration;

/** Validation shared by the operators. */
final class Operators {
  private Operators() {}

  static Duration checkLateness(Duration allowedLateness) {
    if (allowedLateness.isShorterThan(Duration.ZERO)) {
      throw new IllegalArgumentException(
          "allowedLateness must be >= 0, but was " + allowedLateness);
    }
    return allowedLateness;
  }

  /** Tuples are keyed by all attributes through their encoding, so it must be deterministic. */
  static void checkTupleCoder(Coder<?> coder, String which) {
    Aggregate.requireDeterministic(coder, "the coder of " + which + " tuples,");
  }
}
