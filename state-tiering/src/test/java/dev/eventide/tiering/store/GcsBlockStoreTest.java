package dev.eventide.tiering.store;

import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.contrib.nio.testing.LocalStorageHelper;
import java.util.UUID;

/**
 * The contract on Google Cloud Storage through google-cloud-nio's in-memory {@code Storage} fake;
 * {@link RealGcsBlockStoreTest} runs it against a real bucket.
 */
class GcsBlockStoreTest extends BlockStoreContractTest {
  private Storage storage;

  @Override
  protected BlockStore newStore() {
    storage = LocalStorageHelper.getOptions().getService();
    return new GcsBlockStore(storage, "eventide-test", "run-" + UUID.randomUUID() + "/");
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
}
