package dev.eventide.blockstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalFileBlockStoreTest extends BlockStoreContractTest {
  @TempDir Path root;

  @Override
  protected BlockStore newStore() throws Exception {
    return BlockStores.open(root.toUri().toString());
  }

  @Override
  protected void damage(BlockName name) throws Exception {
    Path file = ((LocalFileBlockStore) store).pathOf(name);
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length - 1] ^= 1;
    Files.write(file, bytes);
  }

  @Override
  protected long entriesHeld() throws Exception {
    try (var entries = Files.walk(root)) {
      return entries.filter(entry -> !entry.equals(root)).count();
    }
  }

  @Test
  void blocksStayInsideTheRootAndLeaveNoTemporaryFiles() throws Exception {
    store.write("../../outside", new byte[] {1, 2, 3});
    try (var files = Files.walk(root)) {
      List<Path> all = files.filter(Files::isRegularFile).toList();
      assertEquals(1, all.size());
      assertTrue(all.get(0).startsWith(root));
      assertTrue(all.get(0).getFileName().toString().endsWith(".blk"));
    }
  }
}
