package dev.eventide.tiering.store;

import com.google.cloud.storage.StorageOptions;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Opens a {@link BlockStore} from its URI. */
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
    URI parsed;
    try {
      parsed = new URI(uri);
    } catch (URISyntaxException e) {
      throw unsupported(uri);
    }
    String scheme = parsed.getScheme() == null ? "" : parsed.getScheme();
    switch (scheme) {
      case "file":
        if (parsed.getPath() == null || parsed.getPath().isEmpty()) {
          throw unsupported(uri);
        }
        return new LocalFileBlockStore(Path.of(parsed));
      case "gs":
        if (parsed.getHost() == null) {
          throw unsupported(uri);
        }
        String prefix = parsed.getPath() == null ? "" : parsed.getPath().replaceFirst("^/", "");
        if (!prefix.isEmpty() && !prefix.endsWith("/")) {
          prefix += "/";
        }
        return new GcsBlockStore(
            StorageOptions.getDefaultInstance().getService(), parsed.getHost(), prefix);
      case "memory":
        return MEMORY.computeIfAbsent(parsed.getSchemeSpecificPart(), InMemoryBlockStore::new);
      default:
        throw unsupported(uri);
    }
  }

  private static IllegalArgumentException unsupported(String uri) {
    return new IllegalArgumentException(
        "unsupported block store '"
            + uri
            + "': expected file:///dir, gs://bucket/prefix or memory:name");
  }
}
