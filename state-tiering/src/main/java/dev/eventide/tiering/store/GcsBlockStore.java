package dev.eventide.tiering.store;

import com.google.cloud.storage.Blob;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.BlobInfo;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Blocks as objects in Google Cloud Storage, {@code gs://bucket/prefix/<owner hash>/<content
 * hash>.blk}. An object upload is atomic, so a reader never sees half a block; a block already
 * there is not uploaded again.
 */
public final class GcsBlockStore implements BlockStore {
  private static final int NOT_FOUND = 404;

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
      // Blocks are named by their contents: if the object exists it holds these very bytes, and
      // two writers racing upload the same bytes, each upload atomic.
      if (storage.get(info.getBlobId()) == null) {
        storage.create(info, BlockFormat.encode(contents));
      }
    } catch (StorageException e) {
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
