package dev.eventide.testing.cluster;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Starting a real cluster is covered by the pipelines module's FlinkClusterIT. */
class FlinkSessionClusterTest {
  @TempDir Path temp;

  @Test
  void missingClasspathSaysHowToBuildIt() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> FlinkSessionCluster.start(temp.resolve("classpath.txt"), temp, 1));
    assertThat(
        e.getMessage(), containsString("mvn -DskipTests package -pl runner-configs/flink-cluster"));
  }

  @Test
  void brokenClasspathFailsWithFlinksOwnOutput() throws Exception {
    Path classpath =
        java.nio.file.Files.writeString(temp.resolve("classpath.txt"), "/nonexistent.jar");
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> FlinkSessionCluster.start(classpath, temp.resolve("work"), 1));
    assertThat(e.getMessage(), containsString("BashJavaUtils GET_JM_RESOURCE_PARAMS failed"));
  }
}
