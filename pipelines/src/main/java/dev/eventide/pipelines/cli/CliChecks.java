package dev.eventide.pipelines.cli;

/** Checks of a numeric flag's value, failing with a usage error that names the flag. */
final class CliChecks {
  private CliChecks() {}

  static void atLeast(String flag, long value, long min) {
    if (value < min) {
      throw new EventideCli.UsageException(
          flag + " must be at least " + min + ", but was " + value);
    }
  }

  static void positive(String flag, double value) {
    if (!(value > 0) || Double.isInfinite(value)) {
      throw new EventideCli.UsageException(flag + " must be a positive number, but was " + value);
    }
  }
}
