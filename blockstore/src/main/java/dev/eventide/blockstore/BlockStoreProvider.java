package dev.eventide.blockstore;

import java.io.IOException;
import java.net.URI;

/**
 * Opens block stores of another URI scheme: implement it, list the class in {@code
 * META-INF/services/dev.eventide.blockstore.BlockStoreProvider}, and {@link BlockStores#open} finds
 * it with {@link java.util.ServiceLoader} on every worker.
 *
 * <pre>{@code
 * public final class MirroredStores implements BlockStoreProvider {
 *   @Override
 *   public String scheme() {
 *     return "mirror";   // opens mirror:NAME
 *   }
 *
 *   @Override
 *   public BlockStore open(URI uri) throws IOException {
 *     return BlockStores.open("memory:" + uri.getSchemeSpecificPart());
 *   }
 * }
 * }</pre>
 */
public interface BlockStoreProvider {
  /** The URI scheme this provider opens, such as {@code s3}. */
  String scheme();

  /**
   * Checks the URI without opening the store.
   *
   * @throws IllegalArgumentException saying what is wrong with it
   */
  default void check(URI uri) {}

  BlockStore open(URI uri) throws IOException;
}
