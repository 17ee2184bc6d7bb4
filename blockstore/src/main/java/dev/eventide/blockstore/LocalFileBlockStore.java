package dev.eventide.blockstore;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Blocks as files under a root directory, {@code <root>/<owner hash>/<content hash>.blk}: the
 * default store, {@code file:///dir} in a URI. A block is written to a temporary file, forced to
 * disk and moved into place atomically (then the directory is forced too), so a reader never sees
 * half a block and a crash leaves at most a temporary file behind. An owner's directory goes with
 * its last block: a store whose blocks are all deleted holds no directories either, however many
 * owners came and went.
 *
 * <pre>{@code
 * BlockStore store = new LocalFileBlockStore(Path.of("/var/eventide/blocks"));
 * // the same as BlockStores.open("file:///var/eventide/blocks")
 * }</pre>
 */
public final class LocalFileBlockStore implements BlockStore {
  private static final String TEMPORARY = ".tmp-";
  private static final int MAX_DIRECTORY_ATTEMPTS = 100;

  private final Path root;

  public LocalFileBlockStore(Path root) throws IOException {
    this.root = root.toAbsolutePath().normalize();
    Files.createDirectories(this.root);
  }

  @Override
  public BlockName write(String owner, byte[] contents) throws IOException {
    BlockName name = BlockName.of(owner, contents);
    Path target = root.resolve(name.path());
    if (Files.exists(target)) {
      return name;
    }
    Path directory = target.getParent();
    Path temporary = directory.resolve(TEMPORARY + UUID.randomUUID());
    try {
      try (FileChannel out = createInOwnDirectory(temporary)) {
        ByteBuffer bytes = ByteBuffer.wrap(BlockFormat.encode(contents));
        while (bytes.hasRemaining()) {
          out.write(bytes);
        }
        out.force(true);
      }
      try {
        Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
      } catch (FileAlreadyExistsException e) {
        // Another writer stored the same block first: same name, same contents.
      }
      forceDirectory(directory);
      return name;
    } catch (IOException e) {
      throw new IOException(
          "could not write block " + name + " to " + uri() + ": " + describe(e), e);
    } finally {
      Files.deleteIfExists(temporary);
    }
  }

  @Override
  public byte[] read(BlockName name) throws IOException {
    try {
      return BlockFormat.decode(uri(), name, Files.readAllBytes(root.resolve(name.path())));
    } catch (NoSuchFileException e) {
      throw new NoSuchBlockException(uri(), name);
    }
  }

  @Override
  public void delete(BlockName name) throws IOException {
    Path file = root.resolve(name.path());
    Files.deleteIfExists(file);
    try {
      Files.delete(file.getParent());
    } catch (DirectoryNotEmptyException | NoSuchFileException ownerStillHasBlocks) {
      // Other blocks (or a writer's temporary file) keep the directory; or it has gone already.
    }
  }

  @Override
  public List<BlockName> list(String owner) throws IOException {
    Path directory = root.resolve(BlockName.ownerHash(owner));
    List<BlockName> names = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*.blk")) {
      for (Path file : files) {
        names.add(BlockName.parse(directory.getFileName() + "/" + file.getFileName()));
      }
    } catch (NoSuchFileException noBlocks) {
      // The owner has no blocks (its directory went with its last one).
    }
    return names;
  }

  @Override
  public String uri() {
    return root.toUri().toString();
  }

  /** Where a block lives on disk (tests damage files there). */
  Path pathOf(BlockName name) {
    return root.resolve(name.path());
  }

  /**
   * Creates {@code file} in its owner's directory, creating that too. A delete of the owner's last
   * block may remove the directory between the two steps; once the file exists the directory is not
   * empty and stays; so the loop ends as soon as no delete falls between the two steps.
   */
  private static FileChannel createInOwnDirectory(Path file) throws IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        Files.createDirectory(file.getParent());
      } catch (FileAlreadyExistsException exists) {
        // The owner's other blocks are there (or were a moment ago: the create below tells).
      }
      try {
        return FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      } catch (NoSuchFileException directoryJustDeleted) {
        if (attempt == MAX_DIRECTORY_ATTEMPTS) {
          throw directoryJustDeleted;
        }
      }
    }
  }

  private static void forceDirectory(Path directory) throws IOException {
    try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
      dir.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      // Some file systems cannot open directories; the move itself was atomic.
    }
  }

  private static String describe(IOException e) {
    String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    String lower = message.toLowerCase(java.util.Locale.ROOT);
    return lower.contains("no space left") || lower.contains("disk space")
        ? message + " (the disk is full: free space or use another store)"
        : message;
  }
}
