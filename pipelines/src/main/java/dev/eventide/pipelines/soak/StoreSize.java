package dev.eventide.pipelines.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The blocks in a local block store ({@code file:} URI) and their bytes, counted in its directory:
 * what the soak's steps keep on disk, read directly rather than from counters of several operators.
 */
final class StoreSize {
  private StoreSize() {}

  /** Whether {@code storeUri} is a store this class can count: a local directory. */
  static boolean countable(String storeUri) {
    return storeUri.startsWith("file:");
  }

  /** {blocks, bytes} in the store at {@code storeUri}, a {@code file:} URI. */
  static long[] of(String storeUri) {
    Path root = Path.of(URI.create(storeUri));
    long blocks = 0;
    long bytes = 0;
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        if (f.getFileName().toString().endsWith(".blk")) {
          try {
            bytes += Files.size(f);
            blocks++;
          } catch (NoSuchFileException purged) {
            // Deleted while counted.
          }
        }
      }
    } catch (NoSuchFileException | UncheckedIOException raced) {
      // A directory deleted while walked: count what was seen.
    } catch (IOException e) {
      throw new UncheckedIOException("cannot count the blocks in " + root, e);
    }
    return new long[] {blocks, bytes};
  }
}
