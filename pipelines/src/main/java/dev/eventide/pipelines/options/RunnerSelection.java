package dev.eventide.pipelines.options;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;

/**
 * Turns a runner config file (see {@code runner-configs/}) and the command line's runner flags into
 * Beam {@link PipelineOptions}. A config file holds one Beam pipeline option per line, {@code
 * name=value}, with {@code #} comments; flags override the file. With neither, the pipeline runs on
 * embedded Flink.
 *
 * <p>For a remote Flink master, the job jar is staged to the cluster unless the options already
 * name {@code filesToStage}.
 */
public final class RunnerSelection {
  private static final Pattern LINE = Pattern.compile("([A-Za-z][A-Za-z0-9]*)\\s*=\\s*(.*)");

  /** The runners the command line names. */
  public enum Runner {
    DIRECT("DirectRunner"),
    FLINK("FlinkRunner");

    final String beamName;

    Runner(String beamName) {
      this.beamName = beamName;
    }
  }

  private final Map<String, String> options = new LinkedHashMap<>();
  private final List<String> sources = new ArrayList<>();

  private RunnerSelection() {}

  /** Starts from the options in {@code configFile}, or from none. */
  public static RunnerSelection fromConfig(Optional<Path> configFile)
      throws InvalidOptionsException {
    RunnerSelection selection = new RunnerSelection();
    if (configFile.isPresent()) {
      selection.load(configFile.get());
    }
    return selection;
  }

  private void load(Path file) throws InvalidOptionsException {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new InvalidOptionsException("config file " + file + " does not exist");
    } catch (IOException e) {
      throw new InvalidOptionsException("cannot read config file " + file + ": " + e.getMessage());
    }
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      Matcher m = LINE.matcher(line);
      if (!m.matches()) {
        throw new InvalidOptionsException(
            String.format(
                "%s line %d: expected a pipeline option as name=value, but was '%s'",
                file, i + 1, line));
      }
      options.put(m.group(1), m.group(2).strip());
    }
    sources.add(file.toString());
  }

  /** Overrides the runner. */
  public RunnerSelection runner(Runner runner) {
    return set("runner", runner.beamName);
  }

  /** Overrides the Flink master: {@code [local]} or {@code host:port}. */
  public RunnerSelection flinkMaster(String master) {
    return set("flinkMaster", master);
  }

  /** Overrides the parallelism. */
  public RunnerSelection parallelism(int parallelism) {
    return set(isFlink() ? "parallelism" : "targetParallelism", Integer.toString(parallelism));
  }

  private RunnerSelection set(String name, String value) {
    options.put(name, value);
    if (!sources.contains("the command line")) {
      sources.add("the command line");
    }
    return this;
  }

  private boolean isFlink() {
    return options.getOrDefault("runner", Runner.FLINK.beamName).startsWith("Flink");
  }

  /**
   * Returns the pipeline options.
   *
   * @param jobJar the jar to stage to a remote Flink cluster, if one was built
   * @throws InvalidOptionsException with Beam's reason, naming where the options came from
   */
  public PipelineOptions create(Optional<Path> jobJar) throws InvalidOptionsException {
    Map<String, String> resolved = new LinkedHashMap<>(options);
    resolved.putIfAbsent("runner", Runner.FLINK.beamName);
    if (isFlink()) {
      resolved.putIfAbsent("flinkMaster", "[local]");
      resolved.putIfAbsent("streaming", "true");
      String master = resolved.get("flinkMaster");
      boolean remote = !master.startsWith("[");
      if (remote && !resolved.containsKey("filesToStage")) {
        if (jobJar.isEmpty()) {
          throw new InvalidOptionsException(
              "Flink master "
                  + master
                  + " is remote, so the job jar must be staged, but it was not found: build it"
                  + " with 'mvn -DskipTests package -pl pipelines -am', or set filesToStage");
        }
        resolved.put("filesToStage", jobJar.get().toString());
      }
    }
    List<String> args = new ArrayList<>();
    resolved.forEach((name, value) -> args.add("--" + name + "=" + value));
    try {
      PipelineOptions created =
          PipelineOptionsFactory.fromArgs(args.toArray(new String[0])).withValidation().create();
      if (isFlink()) {
        created.as(FlinkPipelineOptions.class);
      }
      return created;
    } catch (IllegalArgumentException e) {
      throw new InvalidOptionsException(
          "invalid pipeline options from "
              + (sources.isEmpty() ? "the defaults" : String.join(" and ", sources))
              + ": "
              + e.getMessage());
    }
  }

  /** Options that cannot make a pipeline, with a message a user can act on. */
  public static final class InvalidOptionsException extends Exception {
    private static final long serialVersionUID = 1L;

    public InvalidOptionsException(String message) {
      super(message);
    }
  }
}
