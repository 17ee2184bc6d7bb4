package dev.eventide.pipelines.build;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.not;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every module with tests gives each of them a time limit and a thread dump when it runs out, so a
 * wait that never ends fails its test instead of hanging the build (docs/development.md). Run from
 * the last module of the build, it reads every module's test resources.
 */
class TestLimitsTest {
  private static final Path ROOT = Paths.get("..");
  private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");

  @Test
  void everyModuleWithTestsLimitsThemAndDumpsThreadsAtTheLimit() throws IOException {
    String parent = Files.readString(ROOT.resolve("pom.xml"), StandardCharsets.UTF_8);
    List<String> withTests = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    Matcher m = MODULE.matcher(parent);
    while (m.find()) {
      Path module = ROOT.resolve(m.group(1));
      if (!Files.isDirectory(module.resolve("src/test/java"))) {
        continue;
      }
      withTests.add(m.group(1));
      Path file = module.resolve("src/test/resources/junit-platform.properties");
      if (!Files.isRegularFile(file)) {
        problems.add(m.group(1) + ": no " + ROOT.relativize(file));
        continue;
      }
      Properties p = new Properties();
      try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        p.load(in);
      }
      String limit = p.getProperty("junit.jupiter.execution.timeout.default", "");
      if (!limit.strip().matches("\\d+ ?(ms|s|m|h)")) {
        problems.add(m.group(1) + ": junit.jupiter.execution.timeout.default is '" + limit + "'");
      }
      if (!"true".equals(p.getProperty("junit.jupiter.execution.timeout.threaddump.enabled"))) {
        problems.add(
            m.group(1) + ": junit.jupiter.execution.timeout.threaddump.enabled is not true");
      }
    }
    assertThat("modules with tests", withTests, not(empty()));
    assertThat(problems, empty());
  }
}
