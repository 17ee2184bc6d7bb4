package dev.eventide.testing.api;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

import dev.eventide.testing.api.fixture.Reachable;
import java.util.List;
import org.junit.jupiter.api.Test;

class PublicSurfaceTest {
  @Test
  void listsPublicTypesAndMembersButNotThoseOfInternalPackages() {
    List<String> lines = PublicSurface.of(Reachable.class).lines();
    assertThat(lines, hasItem("dev.eventide.testing.api.fixture.Reachable class"));
    assertThat(lines, hasItem("dev.eventide.testing.api.fixture.Reachable static int answer()"));
    assertThat(lines, everyItem(not(startsWith("dev.eventide.testing.api.fixture.internal."))));
  }
}
