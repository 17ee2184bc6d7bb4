package dev.eventide.pipelines.output;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.transforms.windowing.AfterWatermark;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.Repeatedly;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;

/**
 * Writes every line of a collection, sorted, to {@code <directory>/<name>.txt} once the input is
 * complete (a global window that fires when the watermark reaches its end), through a temporary
 * file and an atomic rename. For the pipelines' small result sets: one worker holds the lines of a
 * file. The directory must be visible to every worker and to the client (the DirectRunner, embedded
 * Flink, or a cluster on this machine).
 */
public final class SortedTextFile extends PTransform<PCollection<String>, PCollection<Void>> {
  private final String name;
  private final String directory;

  private SortedTextFile(String name, String directory) {
    this.name = name;
    this.directory = directory;
  }

  /** Writes to {@code <directory>/<name>.txt}. */
  public static SortedTextFile write(String name, String directory) {
    return new SortedTextFile(name, directory);
  }

  @Override
  public PCollection<Void> expand(PCollection<String> lines) {
    return lines
        .apply(
            "KeyByFile", WithKeys.<String, String>of(name).withKeyType(TypeDescriptors.strings()))
        .setCoder(KvCoder.of(StringUtf8Coder.of(), StringUtf8Coder.of()))
        .apply(
            "AllAtTheEnd",
            Window.<KV<String, String>>into(new GlobalWindows())
                .triggering(Repeatedly.forever(AfterWatermark.pastEndOfWindow()))
                .withAllowedLateness(Duration.ZERO)
                .discardingFiredPanes())
        .apply("Gather", GroupByKey.create())
        .apply("Write", ParDo.of(new WriteFile(directory)));
  }

  /** Reads a file written by this transform; empty if the pipeline wrote no line to it. */
  public static List<String> read(Path directory, String name) {
    Path file = directory.resolve(name + ".txt");
    try {
      return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  private static final class WriteFile extends DoFn<KV<String, Iterable<String>>, Void> {
    private final String directory;

    WriteFile(String directory) {
      this.directory = directory;
    }

    @ProcessElement
    public void process(@Element KV<String, Iterable<String>> lines) {
      List<String> sorted = new ArrayList<>();
      lines.getValue().forEach(sorted::add);
      Collections.sort(sorted);
      Path dir = Paths.get(directory);
      Path target = dir.resolve(lines.getKey() + ".txt");
      try {
        Files.createDirectories(dir);
        Path temp = Files.createTempFile(dir, "." + lines.getKey(), ".tmp");
        Files.write(temp, sorted, StandardCharsets.UTF_8);
        Files.move(
            temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write " + target, e);
      }
    }
  }
}
