package dev.eventide.pipelines.cli;

import dev.eventide.trends.io.TextLines;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * The files a command reads and writes, with errors that name the flag, the path and the reason:
 * inputs may be pipes ({@code <(...)}) as well as files, an output that cannot be written is found
 * before any work starts, and no output may overwrite an input.
 */
final class CliFiles {
  private CliFiles() {}

  /** A file named by a flag. */
  record Named(String flag, Path path) {}

  /** Opens an input: a file, a pipe or a named file descriptor, not a directory. */
  static InputStream openInput(String flag, Path path) {
    if (Files.isDirectory(path)) {
      throw new EventideCli.UsageException(flag + " " + path + " is a directory, not a file");
    }
    try {
      return Files.newInputStream(path);
    } catch (NoSuchFileException e) {
      throw new EventideCli.UsageException(flag + " " + path + ": no such file");
    } catch (IOException e) {
      throw new EventideCli.UsageException(flag + " " + path + ": cannot read it: " + reason(e));
    }
  }

  /** The lines of a UTF-8 input, refusing a file in another encoding with a usage error. */
  static TextLines openLines(String flag, Path path) {
    return openLines(flag + " " + path, openInput(flag, path));
  }

  /** The lines of a UTF-8 stream, {@code name} saying in a usage error what it is. */
  static TextLines openLines(String name, InputStream in) {
    try {
      return TextLines.open(in);
    } catch (TextLines.NotUtf8Exception e) {
      throw new EventideCli.UsageException(name + " " + e.getMessage());
    } catch (IOException e) {
      throw new EventideCli.UsageException(name + ": cannot read it: " + reason(e));
    }
  }

  /**
   * The whole text of a UTF-8 input, its lines joined by {@code \n} (so that a lone CR or a CRLF
   * does not shift line numbers), or a usage error {@code PATH:LINE: reason} at its first line that
   * is not valid UTF-8.
   */
  static String readText(String flag, Path path) {
    StringBuilder text = new StringBuilder();
    try (TextLines lines = openLines(flag, path)) {
      for (TextLines.Line line = lines.next(); line != null; line = lines.next()) {
        if (!line.isValid()) {
          throw new EventideCli.UsageException(path + ":" + line.number() + ": " + line.problem());
        }
        text.append(line.text()).append('\n');
      }
    } catch (IOException e) {
      throw new EventideCli.UsageException(flag + " " + path + ": cannot read it: " + reason(e));
    }
    return text.toString();
  }

  /** Creates or truncates an output file, failing at once with the flag, path and reason. */
  static Writer openOutput(String flag, Path path) {
    if (Files.isDirectory(path)) {
      throw new EventideCli.UsageException(flag + " " + path + " is a directory, not a file");
    }
    try {
      return Files.newBufferedWriter(path, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new EventideCli.UsageException(flag + " " + path + ": cannot write it: " + reason(e));
    }
  }

  /**
   * Creates a directory an output goes to (charts, reports) and checks that it can be written, so a
   * long run does not fail at its end.
   */
  static void checkWritableDirectory(String flag, Path dir) {
    if (dir.toString().isBlank()) {
      throw new EventideCli.UsageException(flag + " must name a directory, but was empty");
    }
    try {
      Files.createDirectories(dir);
      Files.delete(Files.createTempFile(dir, ".eventide-", ".probe"));
    } catch (FileAlreadyExistsException e) {
      throw new EventideCli.UsageException(flag + " " + dir + " is a file, not a directory");
    } catch (IOException e) {
      throw new EventideCli.UsageException(flag + " " + dir + ": cannot write in it: " + reason(e));
    }
  }

  /** Standard output as a writer whose close only flushes. */
  static Writer standardOutput() {
    return new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8)) {
      @Override
      public void close() throws IOException {
        flush(); // leave System.out open
      }
    };
  }

  /** Refuses an output that is one of the inputs or another output: it would be overwritten. */
  static void checkDistinct(List<Named> inputs, List<Named> outputs) {
    for (int i = 0; i < outputs.size(); i++) {
      Named out = outputs.get(i);
      for (Named in : inputs) {
        if (same(out.path(), in.path())) {
          throw new EventideCli.UsageException(
              out.flag()
                  + " "
                  + out.path()
                  + " is also the "
                  + in.flag()
                  + " file, which writing it would destroy; write to another file");
        }
      }
      for (Named other : outputs.subList(0, i)) {
        if (same(out.path(), other.path())) {
          throw new EventideCli.UsageException(
              other.flag() + " and " + out.flag() + " name the same file " + out.path());
        }
      }
    }
  }

  private static boolean same(Path a, Path b) {
    try {
      if (Files.exists(a) && Files.exists(b)) {
        return Files.isSameFile(a, b);
      }
    } catch (IOException e) {
      // Fall back to comparing the names.
    }
    return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
  }

  /** Why an I/O operation failed, in words (the JDK's messages are often only the path). */
  static String reason(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file or directory";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof FileSystemException f && f.getReason() != null) {
      return f.getReason();
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
