package dev.eventide.pipelines.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A JVM a benchmark launches its fresh runs in: a name for the tables, a Java home and options. For
 * {@code eventide bench trends --cold --jvm NAME=[JAVA_HOME] [OPTION...]}, to compare JDKs and
 * launch options side by side in one run:
 *
 * <pre>{@code
 * Jvm.parse("c1=-XX:TieredStopAtLevel=1");            // this JVM's Java, C1 only
 * Jvm.parse("jdk25=/usr/lib/jvm/temurin-25-jdk-amd64"); // another JDK, no options
 * }</pre>
 *
 * @param javaHome the Java home whose {@code bin/java} runs
 * @param options the JVM's options, each starting with {@code -}
 */
public record Jvm(String name, Path javaHome, List<String> options) {

  public Jvm {
    options = List.copyOf(options);
  }

  /** This JVM's Java with no options. */
  public static Jvm current(String name) {
    return new Jvm(name, Path.of(System.getProperty("java.home")), List.of());
  }

  /**
   * Parses {@code NAME=[JAVA_HOME] [OPTION...]}: a first word that does not start with {@code -} is
   * a Java home (this JVM's when there is none), the other words are options.
   *
   * @throws IllegalArgumentException naming what is wrong: no name, a Java home without {@code
   *     bin/java}, a word after the options that is not one
   */
  public static Jvm parse(String text) {
    int eq = text.indexOf('=');
    String name = eq < 0 ? "" : text.substring(0, eq).trim();
    if (name.isEmpty()) {
      throw new IllegalArgumentException(
          "--jvm must be NAME=[JAVA_HOME] [OPTION...], but was '" + text + "'");
    }
    List<String> words = new ArrayList<>();
    for (String w : text.substring(eq + 1).trim().split("\\s+")) {
      if (!w.isEmpty()) {
        words.add(w);
      }
    }
    Path home = Path.of(System.getProperty("java.home"));
    if (!words.isEmpty() && !words.get(0).startsWith("-")) {
      home = Path.of(words.remove(0));
      if (!Files.isExecutable(home.resolve("bin").resolve("java"))) {
        throw new IllegalArgumentException(
            "--jvm " + name + ": " + home + " is not a Java home (no executable bin/java)");
      }
    }
    for (String w : words) {
      if (!w.startsWith("-")) {
        throw new IllegalArgumentException(
            "--jvm " + name + ": '" + w + "' is not a JVM option (options start with -)");
      }
    }
    return new Jvm(name, home, words);
  }

  Path java() {
    return javaHome.resolve("bin").resolve("java");
  }
}
