package dev.eventide.pipelines.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs a benchmark's measurement in a fresh JVM on this JVM's classpath and reads back the lines it
 * prints that start with given markers: for what a JVM's first run, or a flag fixed at its start,
 * shows.
 */
final class ChildJvm {
  private ChildJvm() {}

  /**
   * Runs {@code main} with the JVM options and arguments, waits for it (at most {@code
   * limitSeconds}) and returns, for each marker in order, the first output line that starts with
   * it, the marker removed.
   *
   * @throws IllegalStateException if the JVM fails, runs too long or prints no line for a marker
   */
  static List<String> run(
      Class<?> main,
      List<String> jvmOptions,
      List<String> args,
      List<String> markers,
      long limitSeconds) {
    return run(Jvm.current("this"), main, jvmOptions, args, markers, limitSeconds);
  }

  /** {@link #run(Class, List, List, List, long)} in the given JVM, its options first. */
  static List<String> run(
      Jvm jvm,
      Class<?> main,
      List<String> jvmOptions,
      List<String> args,
      List<String> markers,
      long limitSeconds) {
    List<String> command = new ArrayList<>();
    command.add(jvm.java().toString());
    command.addAll(jvm.options());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(args);
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      List<String> lines = new ArrayList<>();
      try (BufferedReader out =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = out.readLine(); line != null; line = out.readLine()) {
          lines.add(line);
        }
      }
      if (!process.waitFor(limitSeconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IllegalStateException(
            main.getSimpleName() + "'s JVM ran for more than " + limitSeconds + " s");
      }
      List<String> marked = new ArrayList<>();
      for (String marker : markers) {
        lines.stream()
            .filter(l -> l.startsWith(marker))
            .findFirst()
            .ifPresent(l -> marked.add(l.substring(marker.length())));
      }
      if (process.exitValue() != 0 || marked.size() != markers.size()) {
        throw new IllegalStateException(
            main.getSimpleName()
                + "'s JVM ("
                + jvm.name()
                + ") failed (exit "
                + process.exitValue()
                + "): "
                + lines);
      }
      return marked;
    } catch (IOException e) {
      throw new UncheckedIOException("could not launch a JVM", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while " + main.getSimpleName() + " ran", e);
    }
  }
}
