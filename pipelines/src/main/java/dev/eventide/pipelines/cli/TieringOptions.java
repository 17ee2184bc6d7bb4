package dev.eventide.pipelines.cli;

import dev.eventide.blockstore.BlockStore;
import dev.eventide.blockstore.BlockStores;
import java.io.IOException;
import java.nio.file.Path;
import org.apache.beam.sdk.options.PipelineOptions;
import org.joda.time.Duration;
import picocli.CommandLine.Option;

/** The flags of the workloads whose windows are {@code TieredWindow}s: its store, its purges. */
final class TieringOptions {
  @Option(
      names = "--store",
      paramLabel = "URI",
      description =
          "TieredWindow's block store, file:///dir or gs://bucket/prefix (default: the blocks/"
              + " directory of --output).")
  String store;

  @Option(
      names = "--purge-delay",
      paramLabel = "DURATION",
      converter = DurationConverter.class,
      description =
          "How long TieredWindow keeps a window's blocks after its purge (default: 0s). On Flink"
              + " with checkpoints they go only once a checkpoint without the window completes; a"
              + " delay keeps them for restores from older checkpoints or savepoints.")
  Duration purgeDelay;

  /**
   * Checks the flags; {@code nativeWindowing} says that the workload runs Beam's windowing instead.
   */
  void check(boolean nativeWindowing) {
    if (purgeDelay != null && purgeDelay.getMillis() < 0) {
      throw new EventideCli.UsageException("--purge-delay must not be negative");
    }
    boolean delayed = purgeDelay != null && purgeDelay.getMillis() > 0;
    if (nativeWindowing && (store != null || delayed)) {
      throw new EventideCli.UsageException(
          (store != null ? "--store" : "--purge-delay")
              + " is for TieredWindow: it does nothing with --native");
    }
    if (store != null) {
      try {
        BlockStores.checkUri(store);
      } catch (IllegalArgumentException e) {
        throw new EventideCli.UsageException("--store " + store + ": " + e.getMessage());
      }
    }
  }

  Duration purgeDelay() {
    return purgeDelay != null ? purgeDelay : Duration.ZERO;
  }

  /**
   * The block store's URI: {@code --store}, probed where the workers are this process, or the
   * blocks/ directory of the output.
   */
  String blockStore(Path outputDirectory, PipelineOptions options) {
    if (store == null) {
      return outputDirectory.toAbsolutePath().resolve("blocks").toUri().toString();
    }
    if (!RunnerOptions.remote(options)) {
      // The workers are this process: a store they cannot write fails here, before the job starts,
      // not in the middle of it. (A session cluster's workers may see another file system.)
      try (BlockStore opened = BlockStores.open(store)) {
        opened.delete(opened.write("eventide-run-probe", new byte[] {1}));
      } catch (IOException | RuntimeException e) {
        throw new EventideCli.UsageException(
            "--store "
                + store
                + ": cannot write a block there ("
                + e.getMessage()
                + "); choose a store this user can write");
      }
    }
    return store;
  }
}
