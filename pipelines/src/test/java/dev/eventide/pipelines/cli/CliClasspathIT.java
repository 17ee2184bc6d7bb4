package dev.eventide.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.matchesPattern;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * What {@code bin/eventide} runs with is runtime code only: no test framework and no test utilities
 * on the CLI's classpath ({@code target/classpath.txt}, written at {@code package}).
 */
class CliClasspathIT {
  @Test
  void runtimeClasspathHoldsNoTestCode() throws IOException {
    List<String> jars =
        Arrays.stream(
                Files.readString(Paths.get("target", "classpath.txt"))
                    .trim()
                    .split(java.io.File.pathSeparator))
            .map(entry -> Paths.get(entry).getFileName().toString())
            .collect(Collectors.toList());
    assertThat(jars, hasItem(matchesPattern("eventide-generators-.*\\.jar")));
    List<String> testCode =
        jars.stream()
            .filter(
                jar ->
                    jar.matches(
                        "(eventide-testing|junit|junit-jupiter.*|junit-platform.*|junit-vintage.*"
                            + "|hamcrest.*|opentest4j|apiguardian-api|surefire.*|"
                            + "beam-sdks-java-testing.*)-.*\\.jar"))
            .collect(Collectors.toList());
    assertThat(testCode, empty());
  }
}
