package dev.eventide.blockstore;

import com.google.cloud.storage.StorageOptions;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Opens a {@link BlockStore} from its URI.
 *
 * <pre>{@code
 * BlockStores.checkUri("gs://my-bucket/eventide");   // refuses a bad URI before a job starts
 * BlockStore store = BlockStores.open("file:///var/eventide/blocks");
 * }</pre>
 */
public final class BlockStores {
  /** {@code memory:name} stores live as long as the JVM, so every worker thread sees one store. */
  private static final Map<String, InMemoryBlockStore> MEMORY = new ConcurrentHashMap<>();

  private BlockStores() {}

  /**
   * Returns the store at the URI: {@code file:///dir} (a local directory), {@code
   * gs://bucket/prefix} (Google Cloud Storage, with the application default credentials) or {@code
   * memory:name} (the heap of this JVM, one store per name).
   *
   * @throws IllegalArgumentException for any other URI, naming the forms accepted
   */
  public static BlockStore open(String uri) throws IOException {
    URI parsed = checkUri(uri);
    switch (parsed.getScheme()) {
      case "file":
        return new LocalFileBlockStore(Path.of(parsed));
      case "gs":
        String prefix = parsed.getPath() == null ? "" : parsed.getPath().replaceFirst("^/", "");
        if (!prefix.isEmpty() && !prefix.endsWith("/")) {
          prefix += "/";
        }
        return new GcsBlockStore(
            GcsBlockStore.withRetries(StorageOptions.newBuilder()).build().getService(),
            parsed.getHost(),
            prefix);
      case "memory":
        return MEMORY.computeIfAbsent(parsed.getSchemeSpecificPart(), InMemoryBlockStore::new);
      default:
        return provider(parsed.getScheme()).open(parsed);
    }
  }

  /**
   * Checks the form of a store URI without opening the store (so without credentials or I/O).
   *
   * @throws IllegalArgumentException if {@link #open} would not accept it, naming the forms
   *     accepted
   */
  public static URI checkUri(String uri) {
    URI parsed;
    try {
      parsed = new URI(uri == null ? "" : uri);
    } catch (URISyntaxException e) {
      throw unsupported(uri);
    }
    String scheme = parsed.getScheme() == null ? "" : parsed.getScheme();
    boolean valid =
        switch (scheme) {
          case "file" -> parsed.getPath() != null && !parsed.getPath().isEmpty();
          case "gs" -> parsed.getHost() != null;
          case "memory" -> !parsed.getSchemeSpecificPart().isEmpty();
          default -> provider(scheme) != null;
        };
    if (!valid) {
      throw unsupported(uri);
    }
    BlockStoreProvider provider = provider(scheme);
    if (provider != null) {
      provider.check(parsed);
    }
    return parsed;
  }

  /** The provider of the scheme found by {@link ServiceLoader}, or null. */
  private static BlockStoreProvider provider(String scheme) {
    for (BlockStoreProvider provider : ServiceLoader.load(BlockStoreProvider.class)) {
      if (provider.scheme().equals(scheme)) {
        return provider;
      }
    }
    return null;
  }

  private static IllegalArgumentException unsupported(String uri) {
    return new IllegalArgumentException(
        "unsupported block store '"
            + uri
            + "': expected file:///dir, gs://bucket/prefix, memory:name or the scheme of a"
            + " BlockStoreProvider");
  }
}
