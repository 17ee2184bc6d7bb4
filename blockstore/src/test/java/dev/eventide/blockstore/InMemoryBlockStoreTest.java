package dev.eventide.blockstore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.UUID;
import org.junit.jupiter.api.Test;

class InMemoryBlockStoreTest extends BlockStoreContractTest {

  @Override
  protected BlockStore newStore() throws Exception {
    return BlockStores.open("memory:" + UUID.randomUUID());
  }

  @Override
  protected void damage(BlockName name) {
    byte[] stored = ((InMemoryBlockStore) store).storedBytes(name);
    stored[stored.length / 2] ^= 1;
  }

  @Override
  protected long entriesHeld() {
    return ((InMemoryBlockStore) store).entriesHeld();
  }

  @Test
  void oneStorePerNameInAJvm() throws Exception {
    assertSame(BlockStores.open("memory:shared"), BlockStores.open("memory:shared"));
  }

  @Test
  void unsupportedUrisSayWhatIsAccepted() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> BlockStores.open("s3://bucket/x"));
    assertEquals(
        "unsupported block store 's3://bucket/x': expected file:///dir, gs://bucket/prefix,"
            + " memory:name or the scheme of a BlockStoreProvider",
        e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> BlockStores.open("just words"));
    assertThrows(IllegalArgumentException.class, () -> BlockStores.checkUri("memory:"));
    assertThrows(IllegalArgumentException.class, () -> BlockStores.checkUri(null));
  }
}
