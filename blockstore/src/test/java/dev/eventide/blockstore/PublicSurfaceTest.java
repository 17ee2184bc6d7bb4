package dev.eventide.blockstore;

import dev.eventide.testing.api.PublicSurface;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The module's public API against the reviewed {@code src/test/resources/public-api.txt}. */
class PublicSurfaceTest {
  @Test
  void isTheReviewedOne() throws Exception {
    PublicSurface.of(BlockStore.class).assertMatches(Path.of("src/test/resources/public-api.txt"));
  }
}
