package dev.eventide.transforms;

import dev.eventide.testing.api.PublicSurface;
import dev.eventide.transforms.primitives.Aggregate;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The module's public surface, type by type and member by member, is the reviewed one in {@code
 * src/test/resources/public-api.txt}: a change to it shows in that file's diff.
 */
class PublicSurfaceTest {
  @Test
  void isTheReviewedOne() throws IOException {
    PublicSurface.of(Aggregate.class).assertMatches(Path.of("src/test/resources/public-api.txt"));
  }
}
