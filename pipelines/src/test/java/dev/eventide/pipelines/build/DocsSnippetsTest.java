package dev.eventide.pipelines.build;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every Java snippet of README.md and docs/ compiles against the modules as they are, so that the
 * front door never shows code that does not exist. A snippet is a method body, or with {@code <!--
 * snippet members} class members; an HTML comment {@code <!-- snippet ... -->} right before its
 * block declares what it assumes (the user's types and inputs, as class members; {@code import}
 * lines go to the top), invisible on the rendered page.
 */
class DocsSnippetsTest {
  private static final String IMPORTS =
      String.join(
          "\n",
          "import java.io.*;",
          "import java.nio.file.*;",
          "import java.util.*;",
          "import org.apache.beam.sdk.*;",
          "import org.apache.beam.sdk.coders.*;",
          "import org.apache.beam.sdk.testing.*;",
          "import org.apache.beam.sdk.transforms.*;",
          "import org.apache.beam.sdk.transforms.windowing.*;",
          "import org.apache.beam.sdk.values.*;",
          "import org.joda.time.Duration;",
          "import org.joda.time.Instant;",
          "import dev.eventide.generators.*;",
          "import dev.eventide.testing.differential.*;",
          "import dev.eventide.testing.runners.*;",
          "import dev.eventide.testing.streams.*;",
          "import dev.eventide.tiering.*;",
          "import dev.eventide.transforms.*;",
          "import dev.eventide.transforms.primitives.*;",
          "import dev.eventide.trends.*;",
          "import dev.eventide.trends.beam.*;",
          "import dev.eventide.trends.engine.*;",
          "import dev.eventide.trends.query.*;");

  /** A snippet: where it is, what it assumes, its code, and whether it is class members. */
  record Snippet(String where, List<String> imports, String given, String code, boolean members) {
    String className() {
      return "Snippet_" + where.replaceAll("[^A-Za-z0-9]", "_").toLowerCase(Locale.ROOT);
    }

    String source() {
      return "package snippets;\n"
          + IMPORTS
          + "\n"
          + String.join("\n", imports)
          + "\n@SuppressWarnings(\"unused\")\nclass "
          + className()
          + " {\n"
          + given
          + "\n"
          + (members ? code : "void snippet() throws Exception {\n" + code + "\n}")
          + "\n}\n";
    }
  }

  @Test
  void everyJavaSnippetOfTheReadmeAndTheDocsCompiles(@TempDir Path classes) throws IOException {
    Path root = repositoryRoot();
    List<Snippet> snippets = new ArrayList<>();
    List<Path> pages = new ArrayList<>(List.of(root.resolve("README.md")));
    try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
      docs.filter(f -> f.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    for (Path page : pages) {
      snippets.addAll(snippetsOf(root.relativize(page).toString(), Files.readAllLines(page)));
    }
    assertTrue(snippets.size() >= 10, "snippets found: " + snippets.size());
    assertCompile(snippets, classes);
  }

  /**
   * Every example in the javadoc of the library modules' main code ({@code <pre>{@code ...}</pre>})
   * compiles too. What an example assumes (the user's inputs and types) is declared here, in {@link
   * JavadocGivens}, so that the javadoc shows only the code a user writes.
   */
  @Test
  void everyJavadocExampleCompiles(@TempDir Path classes) throws IOException {
    Path root = repositoryRoot();
    List<Snippet> snippets = new ArrayList<>();
    List<Path> sources = new ArrayList<>();
    try (Stream<Path> modules = Files.list(root)) {
      for (Path main : modules.map(m -> m.resolve("src/main/java")).sorted().toList()) {
        if (Files.isDirectory(main)) {
          try (Stream<Path> files = Files.walk(main)) {
            files.filter(f -> f.toString().endsWith(".java")).sorted().forEach(sources::add);
          }
        }
      }
    }
    for (Path source : sources) {
      String where = root.relativize(source).toString();
      for (Snippet s : snippetsOf(where, javadocAsMarkdown(Files.readAllLines(source)))) {
        snippets.add(JavadocGivens.complete(s, where));
      }
    }
    assertTrue(snippets.size() >= 20, "javadoc examples found: " + snippets.size());
    assertCompile(snippets, classes);
  }

  /** The modules a user depends on, whose public types each open with an example. */
  private static final List<String> LIBRARY_MODULES =
      List.of(
          "runtime",
          "blockstore",
          "transforms",
          "state-tiering",
          "trends-core",
          "trend-aggregation",
          "generators",
          "testing");

  /** Public because Beam's ServiceLoader needs them; users never call them. */
  private static final Set<String> WITHOUT_EXAMPLE = Set.of("Registrars");

  /**
   * Every public type of the library modules, outside their internal packages, opens its javadoc
   * with an example (which {@link #everyJavadocExampleCompiles} compiles).
   */
  @Test
  void everyPublicTypeOfTheLibraryHasAnExample() throws IOException {
    Path root = repositoryRoot();
    List<String> without = new ArrayList<>();
    int checked = 0;
    for (String module : LIBRARY_MODULES) {
      List<Path> sources;
      try (Stream<Path> files = Files.walk(root.resolve(module).resolve("src/main/java"))) {
        sources =
            files
                .filter(f -> f.toString().endsWith(".java"))
                .filter(f -> !f.toString().contains("/internal/"))
                .sorted()
                .toList();
      }
      for (Path source : sources) {
        String name = source.getFileName().toString().replace(".java", "");
        String text = Files.readString(source);
        Matcher declaration =
            Pattern.compile(
                    "^public (?:final |abstract |sealed )*(?:class|interface|enum|record|@interface) "
                        + name
                        + "\\b",
                    Pattern.MULTILINE)
                .matcher(text);
        if (!declaration.find() || WITHOUT_EXAMPLE.contains(name)) {
          continue;
        }
        checked++;
        int javadoc = text.lastIndexOf("/**", declaration.start());
        if (javadoc < 0 || !text.substring(javadoc, declaration.start()).contains("<pre>{@code")) {
          without.add(root.relativize(source).toString());
        }
      }
    }
    assertTrue(checked >= 40, "public types found: " + checked);
    assertTrue(without.isEmpty(), () -> "public types without an example: " + without);
  }

  /**
   * A source as Markdown with the same lines: each {@code <pre>{@code} block of its javadoc becomes a
   * fenced Java block, its leading {@code *} removed and its HTML escapes undone, and every other
   * line is blank, so that a snippet's place is its line in the source.
   */
  static List<String> javadocAsMarkdown(List<String> source) {
    List<String> lines = new ArrayList<>();
    boolean inJavadoc = false;
    boolean inCode = false;
    for (String line : source) {
      String text = line.strip();
      String content = line.replaceFirst("^\\s*\\* ?", "");
      if (!inJavadoc) {
        inJavadoc = text.startsWith("/**") && !text.endsWith("*/");
        lines.add("");
      } else if (text.endsWith("*/")) {
        inJavadoc = false;
        inCode = false;
        lines.add("");
      } else if (content.strip().equals("<pre>{@code")) {
        inCode = true;
        lines.add("```java");
      } else if (inCode && content.strip().equals("}</pre>")) {
        inCode = false;
        lines.add("```");
      } else if (inCode) {
        lines.add(
            content
                .replace("{@literal @}", "@")
                .replace("&#64;", "@")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&"));
      } else {
        lines.add("");
      }
    }
    return lines;
  }

  private static void assertCompile(List<Snippet> snippets, Path classes) {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    List<JavaFileObject> sources = new ArrayList<>();
    for (Snippet s : snippets) {
      sources.add(
          new SimpleJavaFileObject(
              URI.create("string:///snippets/" + s.className() + ".java"),
              JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
              return s.source();
            }
          });
    }
    List<String> options =
        List.of(
            "-proc:none",
            "-classpath",
            System.getProperty("java.class.path"),
            "-d",
            classes.toString(),
            "-encoding",
            StandardCharsets.UTF_8.name());
    boolean compiled = javac.getTask(null, null, diagnostics, options, null, sources).call();
    List<String> errors = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() == Diagnostic.Kind.ERROR) {
        String name = d.getSource() == null ? "?" : d.getSource().getName();
        Snippet s =
            snippets.stream().filter(x -> name.contains(x.className())).findFirst().orElse(null);
        errors.add(
            (s == null ? name : s.where())
                + ": "
                + d.getMessage(Locale.ROOT)
                + "\n    in: "
                + lineOf(s, d.getLineNumber()));
      }
    }
    assertTrue(compiled && errors.isEmpty(), () -> String.join("\n", errors));
  }

  /** The snippets of one page, each named by the page and the line of its opening fence. */
  static List<Snippet> snippetsOf(String page, List<String> lines) {
    List<Snippet> snippets = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).strip().equals("```java")) {
        continue;
      }
      int end = i + 1;
      while (end < lines.size() && !lines.get(end).strip().equals("```")) {
        end++;
      }
      String code = String.join("\n", lines.subList(i + 1, end));
      List<String> imports = new ArrayList<>();
      StringBuilder given = new StringBuilder();
      boolean members = false;
      int before = i - 1;
      while (before >= 0 && lines.get(before).isBlank()) {
        before--;
      }
      if (before >= 0 && lines.get(before).strip().endsWith("-->")) {
        int start = before;
        while (start > 0 && !lines.get(start).strip().startsWith("<!--")) {
          start--;
        }
        String first = lines.get(start).strip();
        if (first.startsWith("<!-- snippet")) {
          members = first.contains("members");
          for (String line : lines.subList(start + 1, before)) {
            if (line.strip().startsWith("import ")) {
              imports.add(line.strip());
            } else {
              given.append(line).append('\n');
            }
          }
        }
      }
      snippets.add(new Snippet(page + ":" + (i + 1), imports, given.toString(), code, members));
      i = end;
    }
    return snippets;
  }

  private static String lineOf(Snippet s, long line) {
    if (s == null) {
      return "";
    }
    String[] lines = s.source().split("\n", -1);
    return line >= 1 && line <= lines.length ? lines[(int) line - 1].strip() : "";
  }

  private static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve("README.md"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException("no README.md above " + Path.of("").toAbsolutePath());
    }
    return dir;
  }
}
