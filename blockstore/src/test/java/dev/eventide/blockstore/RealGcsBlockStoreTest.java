package dev.eventide.blockstore;

import com.google.cloud.storage.Blob;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;

/**
 * The contract against real Google Cloud Storage, when {@code EVENTIDE_TEST_GCS_BUCKET} names a
 * bucket the application default credentials can write; skipped otherwise. Each test writes under a
 * prefix of its own and deletes it afterwards.
 */
class RealGcsBlockStoreTest extends BlockStoreContractTest {
  private static final String BUCKET = System.getenv("EVENTIDE_TEST_GCS_BUCKET");
  private Storage storage;
  private String prefix;

  @BeforeAll
  static void needsABucket() {
    Assumptions.assumeTrue(
        BUCKET != null, "set EVENTIDE_TEST_GCS_BUCKET to run the contract against real GCS");
  }

  @Override
  protected BlockStore newStore() {
    storage = StorageOptions.getDefaultInstance().getService();
    prefix = "eventide-test-" + UUID.randomUUID() + "/";
    return new GcsBlockStore(storage, BUCKET, prefix);
  }

  @Override
  protected void damage(BlockName name) {
    GcsBlockStoreTest.damage(storage, ((GcsBlockStore) store).blobId(name));
  }

  @Override
  protected long entriesHeld() {
    return GcsBlockStoreTest.objectsUnder(storage, BUCKET, prefix);
  }

  @AfterEach
  void deleteWhatTheTestWrote() {
    for (Blob blob : storage.list(BUCKET, Storage.BlobListOption.prefix(prefix)).iterateAll()) {
      blob.delete();
    }
  }
}
