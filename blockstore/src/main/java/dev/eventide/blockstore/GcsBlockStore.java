package dev.eventide.blockstore;

import com.google.api.gax.retrying.RetrySettings;
import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import com.google.cloud.storage.StorageOptions;
import com.google.cloud.storage.StorageRetryStrategy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Blocks as objects in Google Cloud Storage, {@code gs://bucket/prefix/<owner hash>/<content
 * hash>.blk}. An object upload is atomic, so a reader never sees half a block; a block already
 * there is not uploaded again.
 *
 * <pre>{@code
 * Storage storage = GcsBlockStore.withRetries(StorageOptions.newBuilder()).build().getService();
 * BlockStore store = new GcsBlockStore(storage, "my-bucket", "eventide/");
 * // the same as BlockStores.open("gs://my-bucket/eventide")
 * }</pre>
 *
 * <p>Every request is idempotent — a block is created only if it does not exist (a block named by
 * its contents that exists holds these very bytes), and reads, lists and deletes of such blocks can
 * be repeated — so the store opened by {@code BlockStores} retries every request that fails
 * transiently (HTTP 408, 429, 5xx, a reset connection) with exponential backoff: {@link
 * #withRetries}.
 */
public final class GcsBlockStore implements BlockStore {
  private static final int NOT_FOUND = 404;
  private static final int PRECONDITION_FAILED = 412;

  /**
   * Up to 8 attempts per request, 100 ms doubling to 5 s between them, within 60 s: long enough to
   * ride out a brief outage or throttling, short enough that a store that is down fails the job
   * with its error instead of stalling it.
   */
  static final RetrySettings RETRIES =
      RetrySettings.newBuilder()
          .setMaxAttempts(8)
          .setInitialRetryDelayDuration(java.time.Duration.ofMillis(100))
          .setRetryDelayMultiplier(2.0)
          .setMaxRetryDelayDuration(java.time.Duration.ofSeconds(5))
          .setTotalTimeoutDuration(java.time.Duration.ofSeconds(60))
          .build();

  /**
   * The retries of this store on a client's options: {@link #RETRIES}, for every request, since
   * every request this store makes is idempotent.
   */
  public static StorageOptions.Builder withRetries(StorageOptions.Builder options) {
    return options
        .setRetrySettings(RETRIES)
        .setStorageRetryStrategy(StorageRetryStrategy.getUniformStorageRetryStrategy());
  }

  private final Storage storage;
  private final String bucket;
  private final String prefix;

  /**
   * @param prefix object name prefix, empty or ending with {@code /}
   */
  public GcsBlockStore(Storage storage, String bucket, String prefix) {
    if (!prefix.isEmpty() && !prefix.endsWith("/")) {
      throw new IllegalArgumentException("prefix must be empty or end with '/', but was " + prefix);
    }
    this.storage = storage;
    this.bucket = bucket;
    this.prefix = prefix;
  }

  @Override
  public BlockName write(String owner, byte[] contents) throws IOException {
    BlockName name = BlockName.of(owner, contents);
    BlobInfo info =
        BlobInfo.newBuilder(blobId(name)).setContentType("application/octet-stream").build();
    try {
      // Blocks are named by their contents: if the object exists it holds these very bytes. The
      // precondition makes the create idempotent, so a retried or racing upload is harmless.
      storage.create(info, BlockFormat.encode(contents), Storage.BlobTargetOption.doesNotExist());
    } catch (StorageException e) {
      if (e.getCode() == PRECONDITION_FAILED) {
        return name; // there already
      }
      throw new IOException(
          "could not write block " + name + " to " + uri() + ": " + e.getMessage(), e);
    }
    return name;
  }

  @Override
  public byte[] read(BlockName name) throws IOException {
    byte[] stored;
    try {
      stored = storage.readAllBytes(blobId(name));
    } catch (StorageException e) {
      if (e.getCode() == NOT_FOUND) {
        throw new NoSuchBlockException(uri(), name);
      }
      throw new IOException(
          "could not read block " + name + " from " + uri() + ": " + e.getMessage(), e);
    }
    return BlockFormat.decode(uri(), name, stored);
  }

  @Override
  public void delete(BlockName name) throws IOException {
    try {
      storage.delete(blobId(name));
    } catch (StorageException e) {
      throw new IOException(
          "could not delete block " + name + " from " + uri() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public List<BlockName> list(String owner) throws IOException {
    String directory = prefix + BlockName.ownerHash(owner) + "/";
    List<BlockName> names = new ArrayList<>();
    try {
      for (Blob blob :
          storage.list(bucket, Storage.BlobListOption.prefix(directory)).iterateAll()) {
        if (blob.getName().endsWith(".blk")) {
          names.add(BlockName.parse(blob.getName().substring(prefix.length())));
        }
      }
    } catch (StorageException e) {
      throw new IOException("could not list blocks in " + uri() + ": " + e.getMessage(), e);
    }
    return names;
  }

  @Override
  public String uri() {
    return "gs://" + bucket + "/" + prefix;
  }

  BlobId blobId(BlockName name) {
    return BlobId.of(bucket, prefix + name.path());
  }
}
