package dev.eventide.pipelines.aion;

/**
 * The count and sum of a window's values: exact, so results from different runners compare equal,
 * and enough to derive the average.
 */
record CountSum(long count, long sum) {
  static final CountSum EMPTY = new CountSum(0, 0);

  /** Adds a value, failing rather than wrapping on overflow. */
  CountSum plus(long value) {
    return new CountSum(count + 1, Math.addExact(sum, value));
  }
}
