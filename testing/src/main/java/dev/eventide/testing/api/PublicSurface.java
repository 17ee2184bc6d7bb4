package dev.eventide.testing.api;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The public surface of a module: every public type a user can reach, with its public and protected
 * constructors, methods and fields, one per line, sorted. Types in a package named {@code internal}
 * (or below one) are left out: they are public only for Eventide's other modules, and javadoc
 * leaves them out too. A module's test compares it with a file checked in beside the test, so that
 * widening (or narrowing) the API is a change a reviewer sees; {@code -Deventide.api.update=true}
 * writes the file instead of comparing.
 *
 * <pre>{@code
 * // in a test of the module that holds TieredWindow:
 * PublicSurface.of(TieredWindow.class).assertMatches(Path.of("src/test/resources/public-api.txt"));
 * }</pre>
 */
public final class PublicSurface {
  private final List<String> lines;

  private PublicSurface(List<String> lines) {
    this.lines = List.copyOf(lines);
  }

  /** The surface of the classes compiled beside {@code anyClassOfTheModule}. */
  public static PublicSurface of(Class<?> anyClassOfTheModule) {
    Path root;
    try {
      root =
          Path.of(anyClassOfTheModule.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
    if (!Files.isDirectory(root)) {
      throw new IllegalStateException(
          "the classes of " + anyClassOfTheModule + " are not in a directory: " + root);
    }
    TreeSet<String> lines = new TreeSet<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
        String name =
            root.relativize(file).toString().replace(file.getFileSystem().getSeparator(), ".");
        name = name.substring(0, name.length() - ".class".length());
        if (name.endsWith("package-info")
            || name.endsWith("module-info")
            || name.contains(".internal.")) {
          continue;
        }
        Class<?> type;
        try {
          type = Class.forName(name, false, anyClassOfTheModule.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
          throw new IllegalStateException("cannot load " + name, e);
        }
        if (reachable(type)) {
          describe(type, lines);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new PublicSurface(new ArrayList<>(lines));
  }

  /** One line per public type and member. */
  public List<String> lines() {
    return lines;
  }

  /**
   * Fails, listing the lines added and removed, unless the surface is the one in {@code file}; with
   * {@code -Deventide.api.update=true} writes it there instead.
   */
  public void assertMatches(Path file) throws IOException {
    if (Boolean.getBoolean("eventide.api.update")) {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Files.write(file, lines, StandardCharsets.UTF_8);
      return;
    }
    List<String> reviewed = Files.exists(file) ? Files.readAllLines(file) : List.of();
    List<String> added = lines.stream().filter(l -> !reviewed.contains(l)).toList();
    List<String> removed = reviewed.stream().filter(l -> !lines.contains(l)).toList();
    if (!added.isEmpty() || !removed.isEmpty()) {
      throw new AssertionError(
          "the public surface is not the reviewed one in "
              + file
              + " (if the change is meant, run the test with -Deventide.api.update=true and"
              + " review the file's diff)\n"
              + added.stream().map(l -> "+ " + l).collect(Collectors.joining("\n"))
              + (added.isEmpty() || removed.isEmpty() ? "" : "\n")
              + removed.stream().map(l -> "- " + l).collect(Collectors.joining("\n")));
    }
  }

  private static boolean reachable(Class<?> type) {
    for (Class<?> t = type; t != null; t = t.getEnclosingClass()) {
      if (!Modifier.isPublic(t.getModifiers()) || t.isAnonymousClass() || t.isLocalClass()) {
        return false;
      }
    }
    return true;
  }

  private static void describe(Class<?> type, TreeSet<String> lines) {
    String name = type.getName().replace('$', '.');
    lines.add(name + " " + kind(type));
    for (Constructor<?> c : type.getDeclaredConstructors()) {
      if (visible(c.getModifiers()) && !type.isEnum()) {
        lines.add(name + " " + member(c, "new"));
      }
    }
    for (Method m : type.getDeclaredMethods()) {
      if (visible(m.getModifiers()) && !m.isSynthetic() && !m.isBridge()) {
        lines.add(name + " " + member(m, m.getName()));
      }
    }
    for (Field f : type.getDeclaredFields()) {
      if (visible(f.getModifiers()) && !f.isSynthetic()) {
        lines.add(
            name
                + " "
                + (Modifier.isStatic(f.getModifiers()) ? "static " : "")
                + f.getGenericType().getTypeName()
                + " "
                + f.getName());
      }
    }
  }

  private static boolean visible(int modifiers) {
    return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
  }

  private static String kind(Class<?> type) {
    if (type.isAnnotation()) {
      return "@interface";
    } else if (type.isInterface()) {
      return "interface";
    } else if (type.isEnum()) {
      return "enum";
    } else if (type.isRecord()) {
      return "record";
    }
    return (Modifier.isAbstract(type.getModifiers()) ? "abstract " : "") + "class";
  }

  private static String member(Executable e, String name) {
    String returns =
        e instanceof Method m ? m.getGenericReturnType().getTypeName().replace('$', '.') + " " : "";
    return (Modifier.isStatic(e.getModifiers()) ? "static " : "")
        + (Modifier.isProtected(e.getModifiers()) ? "protected " : "")
        + returns
        + name
        + Stream.of(e.getGenericParameterTypes())
            .map(t -> t.getTypeName().replace('$', '.'))
            .collect(Collectors.joining(", ", "(", ")"));
  }
}
