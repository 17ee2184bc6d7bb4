package dev.eventide.pipelines.build;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The front door does not lie: README's first command, {@code bin/eventide run}, runs as written
 * (with its output directed into the test's directory) and prints what README says it prints. The
 * other commands README shows build or test the whole project and take minutes; they are what CI
 * runs. Run after {@code package}, so the script finds its build; {@code EVENTIDE_NO_BUILD} makes
 * it fail rather than start a build of its own inside this one.
 */
class ReadmeCommandIT {
  /**
   * Far beyond the run's 16 s on a loaded machine, and within the module's 5-minute limit per test:
   * a hung run fails here, and its process goes with it.
   */
  private static final long LIMIT_MINUTES = 4;

  @TempDir Path temp;

  @Test
  void theFirstCommandOfReadmeRunsAsWritten() throws Exception {
    Path root = Paths.get("..").toAbsolutePath().normalize();
    List<String> commands = eventideCommands(root.resolve("README.md"));
    assertThat("README's bin/eventide commands " + commands, commands.size(), equalTo(1));
    String command = commands.get(0) + " --output " + temp.resolve("out");

    Path log = temp.resolve("log.txt");
    ProcessBuilder builder =
        new ProcessBuilder("bash", "-c", command)
            .directory(root.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().put("EVENTIDE_NO_BUILD", "1");
    Process run = builder.start();
    boolean ended;
    try {
      ended = run.waitFor(LIMIT_MINUTES, TimeUnit.MINUTES);
    } finally {
      // Also when the wait is interrupted: the run and the JVM it started end with the test.
      if (run.isAlive()) {
        run.descendants().forEach(ProcessHandle::destroyForcibly);
        run.destroyForcibly();
      }
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(
        command + " ended within " + LIMIT_MINUTES + " min:\n" + output, ended, equalTo(true));
    assertThat(command + ":\n" + output, run.exitValue(), equalTo(0));
    // What README shows of the run: the summary's header, and the closing line's counts, which
    // the seeded stream and its watermark decide on every runner (only the time is the machine's).
    String readme = Files.readString(root.resolve("README.md"), StandardCharsets.UTF_8);
    assertThat(output, containsString(firstLineStartingWith(readme, "window start (UTC)")));
    String done = firstLineStartingWith(readme, "average: done in ");
    String counts = done.substring(done.indexOf("): ") + 3, done.indexOf("; summary in"));
    assertThat(output, containsString(counts));
    assertThat(output, not(containsString("Exception")));
  }

  private static String firstLineStartingWith(String text, String start) {
    return text.lines()
        .filter(line -> line.startsWith(start))
        .findFirst()
        .orElseThrow(() -> new AssertionError("README has no line starting with " + start));
  }

  /** The lines of README's bash blocks that run bin/eventide, without their comments. */
  private static List<String> eventideCommands(Path readme) throws IOException {
    List<String> commands = new ArrayList<>();
    boolean inBash = false;
    for (String line : Files.readAllLines(readme, StandardCharsets.UTF_8)) {
      if (line.startsWith("```")) {
        inBash = !inBash && line.equals("```bash");
      } else if (inBash && line.startsWith("bin/eventide")) {
        int comment = line.indexOf(" #");
        commands.add((comment < 0 ? line : line.substring(0, comment)).strip());
      }
    }
    return commands;
  }
}
