package dev.eventide.blockstore;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The contract on Google Cloud Storage through an in-memory fake ({@link FakeGcs}), with the
 * store's retries; {@link RealGcsBlockStoreTest} runs it against a real bucket.
 */
class GcsBlockStoreTest extends BlockStoreContractTest {
  private Storage storage;
  private String prefix;

  @Override
  protected BlockStore newStore() {
    storage = FakeGcs.reliable().storage();
    prefix = "run-" + UUID.randomUUID() + "/";
    return new GcsBlockStore(storage, "eventide-test", prefix);
  }

  @Override
  protected long entriesHeld() {
    return objectsUnder(storage, "eventide-test", prefix);
  }

  /** The objects whose names start with {@code prefix}. */
  static long objectsUnder(Storage storage, String bucket, String prefix) {
    long objects = 0;
    for (Blob ignored : storage.list(bucket, Storage.BlobListOption.prefix(prefix)).iterateAll()) {
      objects++;
    }
    return objects;
  }

  @Override
  protected void damage(BlockName name) {
    damage(storage, ((GcsBlockStore) store).blobId(name));
  }

  /** Flips the last byte of an object. */
  static void damage(Storage storage, BlobId id) {
    byte[] bytes = storage.readAllBytes(id);
    bytes[bytes.length - 1] ^= 1;
    storage.create(BlobInfo.newBuilder(id).build(), bytes);
  }

  /** Every other request fails with HTTP 503: the client's retries carry each one through. */
  @Test
  void transientFailuresAreRetried() throws Exception {
    FakeGcs flaky = FakeGcs.flaky();
    BlockStore store = new GcsBlockStore(flaky.storage(), "eventide-test", "flaky/");
    byte[] contents = "a block".getBytes(StandardCharsets.UTF_8);
    BlockName name = store.write("k", contents);
    assertEquals(name, store.write("k", contents), "a second write of a block is a no-op");
    assertArrayEquals(contents, store.read(name));
    assertEquals(List.of(name), store.list("k"));
    store.delete(name);
    assertEquals(List.of(), store.list("k"));
    assertTrue(flaky.failures.get() >= 6, "failures injected: " + flaky.failures.get());
  }
}
