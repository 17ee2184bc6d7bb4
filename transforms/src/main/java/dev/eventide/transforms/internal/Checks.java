package dev.eventide.transforms.internal;

import org.apache.beam.sdk.coders.Coder;
import org.joda.time.Duration;

/** Validation shared by the primitives and the operators built from them. */
public final class Checks {
  private Checks() {}

  /**
   * Returns {@code allowedLateness}.
   *
   * @throws IllegalArgumentException if it is negative
   */
  public static Duration checkLateness(Duration allowedLateness) {
    if (allowedLateness.isShorterThan(Duration.ZERO)) {
      throw new IllegalArgumentException(
          "allowedLateness must be >= 0, but was " + allowedLateness);
    }
    return allowedLateness;
  }

  /** Tuples are keyed by all attributes through their encoding, so it must be deterministic. */
  public static void checkTupleCoder(Coder<?> coder, String which) {
    requireDeterministic(coder, "the coder of " + which + " tuples,");
  }

  /**
   * Checks that {@code coder}, in {@code role}, encodes equal values to equal bytes.
   *
   * @throws IllegalArgumentException naming the role and the coder's reason if it does not
   */
  public static void requireDeterministic(Coder<?> coder, String role) {
    try {
      coder.verifyDeterministic();
    } catch (Coder.NonDeterministicException e) {
      throw new IllegalArgumentException(
          String.format(
              "%s %s is not deterministic, but Eventide compares keys by their encoding, so equal"
                  + " keys must always encode to equal bytes: %s",
              role, coder, e.getMessage()),
          e);
    }
  }
}
