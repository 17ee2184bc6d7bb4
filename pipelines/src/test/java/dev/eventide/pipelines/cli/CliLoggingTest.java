package dev.eventide.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line as a user starts it, in its own JVM with the runtime logging configuration:
 * Beam's and Flink's own log lines stay out of the terminal unless {@code EVENTIDE_DEBUG} asks for
 * them.
 */
class CliLoggingTest {
  @TempDir Path temp;

  private record Outcome(int exitCode, String err) {}

  /** Runs {@code eventide} in a child JVM on the test's classpath without the test resources. */
  private Outcome eventide(Map<String, String> environment, String... args)
      throws IOException, InterruptedException {
    String classpath =
        Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(entry -> !entry.endsWith("test-classes"))
            .collect(Collectors.joining(File.pathSeparator));
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(classpath);
    command.add(EventideCli.class.getName());
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).directory(temp.toFile());
    builder.environment().remove("EVENTIDE_DEBUG");
    builder.environment().remove("EVENTIDE_LOG_LEVEL");
    builder.environment().putAll(environment);
    Path err = temp.resolve("stderr-" + System.nanoTime() + ".txt");
    builder.redirectError(err.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD);
    Process process = builder.start();
    try {
      if (!process.waitFor(180, TimeUnit.SECONDS)) {
        throw new AssertionError("eventide " + String.join(" ", args) + " did not end in 180 s");
      }
    } finally {
      process.destroyForcibly();
    }
    return new Outcome(process.exitValue(), Files.readString(err, StandardCharsets.UTF_8));
  }

  @Test
  void embeddedFlinkRunsWithoutFlinksLogLinesUnlessAskedFor() throws Exception {
    Path queries = temp.resolve("q.queries");
    Files.writeString(queries, "QUERY q RETURN COUNT(*) PATTERN SEQ(A, B+) WITHIN 10 ms\n");
    Path events = temp.resolve("e.jsonl");
    Files.writeString(events, "{\"type\":\"A\",\"time\":1}\n{\"type\":\"B\",\"time\":2}\n");
    String[] args = {
      "trends", "--queries=" + queries, "--events=" + events, "--runner=flink", "--out=out.jsonl"
    };

    Outcome quiet = eventide(Map.of(), args);
    assertThat(quiet.err(), quiet.exitCode(), equalTo(0));
    assertThat(quiet.err(), containsString("2 events, 1 results"));
    // Only Eventide's own lines: progress and the summary.
    quiet.err().lines().forEach(line -> assertThat(line, line.startsWith("eventide trends: ")));

    Outcome debug = eventide(Map.of("EVENTIDE_DEBUG", "1"), args);
    assertThat(debug.err(), debug.exitCode(), equalTo(0));
    assertThat(debug.err(), containsString(" WARN "));
  }
}
