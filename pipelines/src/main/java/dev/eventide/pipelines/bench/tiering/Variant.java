package dev.eventide.pipelines.bench.tiering;

import java.util.Locale;

/** What the tiering benchmark compares, each run in a JVM of its own with the same heap. */
public enum Variant {
  /** {@code TieredWindow} on embedded Flink (heap state), pre-staging on. */
  TIERED(true, true),
  /** As {@link #TIERED}, pre-staging a learned Δt before the expected late firing. */
  TIERED_PRESTAGE_AHEAD(true, true),
  /** {@code TieredWindow} on embedded Flink (heap state), pre-staging off. */
  TIERED_NO_PRESTAGE(true, true),
  /** Beam's windowing + GroupByKey on the DirectRunner. */
  NATIVE_DIRECT(false, false),
  /** Beam's windowing + GroupByKey on embedded Flink with heap state. */
  NATIVE_FLINK_HEAP(false, true),
  /** Beam's windowing + GroupByKey on embedded Flink with RocksDB state. */
  NATIVE_FLINK_ROCKSDB(false, true);

  private final boolean tiered;
  private final boolean flink;

  Variant(boolean tiered, boolean flink) {
    this.tiered = tiered;
    this.flink = flink;
  }

  public boolean tiered() {
    return tiered;
  }

  public boolean flink() {
    return flink;
  }

  public String cliName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  public static Variant fromCliName(String name) {
    for (Variant v : values()) {
      if (v.cliName().equals(name)) {
        return v;
      }
    }
    throw new IllegalArgumentException(
        "unknown variant '"
            + name
            + "': expected tiered, tiered-prestage-ahead, tiered-no-prestage, native-direct,"
            + " native-flink-heap or native-flink-rocksdb");
  }
}
