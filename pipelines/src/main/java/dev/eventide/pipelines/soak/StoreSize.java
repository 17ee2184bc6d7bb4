package dev.eventide.pipelines.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;

/**
 * The blocks in a local block store ({@code file:} URI) and the bytes the store takes, counted in
 * its directory: what the soak's steps keep on disk, read directly rather than from counters of
 * several operators. The bytes include the directories' own (a few KB each on most file systems),
 * so that directories left behind by deleted blocks show as growth.
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
    long[] size = new long[2];
    try {
      Files.walkFileTree(
          root,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
              size[1] += attributes.size();
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
              if (file.getFileName().toString().endsWith(".blk")) {
                size[0]++;
                size[1] += attributes.size();
              }
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
              if (e instanceof NoSuchFileException) {
                return FileVisitResult.CONTINUE; // deleted while counted: a purge, not an error
              }
              throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
              if (e != null && !(e instanceof NoSuchFileException)) {
                throw e;
              }
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (NoSuchFileException notYetWritten) {
      // No block written yet.
    } catch (IOException e) {
      throw new UncheckedIOException("cannot count the blocks in " + root, e);
    }
    return size;
  }
}
