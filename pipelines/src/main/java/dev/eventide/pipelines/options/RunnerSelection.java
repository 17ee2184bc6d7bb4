package dev.eventide.pipelines.options;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
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

    /**
     * The runner a user named: {@code direct} or {@code flink}, or Beam's names that config files
     * use, {@code DirectRunner} or {@code FlinkRunner}, in any case.
     */
    public static Runner parse(String name) {
      for (Runner r : values()) {
        if (name.equalsIgnoreCase(r.name()) || name.equalsIgnoreCase(r.beamName)) {
          return r;
        }
      }
      throw new IllegalArgumentException(
          "expected direct or flink (or DirectRunner, FlinkRunner), but was '" + name + "'");
    }
  }

  /**
   * A Flink master's REST address, {@code host:port} or {@code host} (port 8081), with an optional
   * {@code http://}.
   */
  public record FlinkAddress(String host, int port) {
    private static final Pattern HOST_PORT =
        Pattern.compile("(?:https?://)?(\\[[0-9A-Fa-f:.]+\\]|[^:/\\[\\]\\s]+)(?::([0-9]{1,9}))?/?");

    /** Flink's default REST port. */
    public static final int DEFAULT_PORT = 8081;

    /**
     * The address of a remote master, or empty for an embedded one ({@code [local]}, {@code
     * [auto]}).
     *
     * @throws IllegalArgumentException saying what is wrong with it
     */
    public static Optional<FlinkAddress> parse(String master) {
      if (master.equals("[local]") || master.equals("[auto]")) {
        return Optional.empty();
      }
      if (master.equals("local") || master.equals("auto")) {
        throw new IllegalArgumentException(
            "Flink master '"
                + master
                + "' is a host name; for embedded Flink write ["
                + master
                + "], brackets included (quote it in a shell)");
      }
      Matcher m = HOST_PORT.matcher(master);
      if (master.startsWith("[") && !master.matches("\\[[0-9A-Fa-f:.]+\\](:.*)?") || !m.matches()) {
        throw new IllegalArgumentException(
            "Flink master '"
                + master
                + "' is not [local], [auto] or host:port (the REST address of a session"
                + " cluster, e.g. 127.0.0.1:8081)");
      }
      int port = m.group(2) == null ? DEFAULT_PORT : Integer.parseInt(m.group(2));
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException(
            "Flink master '" + master + "': port " + port + " is not between 1 and 65535");
      }
      return Optional.of(new FlinkAddress(m.group(1), port));
    }

    @Override
    public String toString() {
      return host + ":" + port;
    }
  }

  private final Map<String, String> options = new LinkedHashMap<>();
  private final List<String> sources = new ArrayList<>();

  /** Where each option was set: a config file's line, or the command line. */
  private final Map<String, String> origins = new LinkedHashMap<>();

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
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new InvalidOptionsException("config file " + file + " does not exist");
    } catch (IOException e) {
      throw new InvalidOptionsException("cannot read config file " + file + ": " + e.getMessage());
    }
    Map<String, Integer> lineOf = new LinkedHashMap<>();
    int number = 0;
    for (byte[] raw : lines(bytes)) {
      number++;
      String line;
      try {
        line =
            StandardCharsets.UTF_8
                .newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT)
                .decode(ByteBuffer.wrap(raw))
                .toString()
                .strip();
      } catch (CharacterCodingException e) {
        throw new InvalidOptionsException(
            file + ":" + number + ": not valid UTF-8; save the config file as UTF-8");
      }
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      Matcher m = LINE.matcher(line);
      if (!m.matches()) {
        throw new InvalidOptionsException(
            String.format(
                "%s:%d: expected a pipeline option as name=value, but was '%s'",
                file, number, line));
      }
      Integer first = lineOf.putIfAbsent(m.group(1), number);
      if (first != null) {
        throw new InvalidOptionsException(
            String.format(
                "%s:%d: %s is set twice (first on line %d); keep one",
                file, number, m.group(1), first));
      }
      options.put(m.group(1), m.group(2).strip());
      origins.put(m.group(1), file + ":" + number);
    }
    sources.add(file.toString());
  }

  /** The lines of a file's bytes, without their line ends. */
  private static List<byte[]> lines(byte[] bytes) {
    List<byte[]> lines = new ArrayList<>();
    int start = 0;
    for (int i = 0; i <= bytes.length; i++) {
      if (i == bytes.length || bytes[i] == '\n') {
        int end = i > start && bytes[i - 1] == '\r' ? i - 1 : i;
        if (i < bytes.length || end > start) {
          lines.add(Arrays.copyOfRange(bytes, start, end));
        }
        start = i + 1;
      }
    }
    return lines;
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
    origins.put(name, "the command line");
    if (!sources.contains("the command line")) {
      sources.add("the command line");
    }
    return this;
  }

  /** Whether the options run on the DirectRunner (else on Flink, the default). */
  public boolean isDirect() {
    return !isFlink();
  }

  private boolean isFlink() {
    return options.getOrDefault("runner", Runner.FLINK.beamName).startsWith("Flink");
  }

  /**
   * The REST address of the Flink session cluster the options submit to, or empty when they run
   * elsewhere (embedded Flink, the DirectRunner).
   *
   * @throws InvalidOptionsException if the Flink master is not an address, naming where it was set
   */
  public Optional<FlinkAddress> remoteFlinkMaster() throws InvalidOptionsException {
    if (!isFlink()) {
      return Optional.empty();
    }
    try {
      return FlinkAddress.parse(options.getOrDefault("flinkMaster", "[local]"));
    } catch (IllegalArgumentException e) {
      throw new InvalidOptionsException(
          e.getMessage() + " (from " + origins.getOrDefault("flinkMaster", "the defaults") + ")");
    }
  }

  /**
   * Returns the pipeline options.
   *
   * @param jobJar the jar to stage to a remote Flink cluster, if one was built
   * @throws InvalidOptionsException with Beam's reason, naming where the options came from
   */
  public PipelineOptions create(Optional<Path> jobJar) throws InvalidOptionsException {
    if (!isFlink() && "the command line".equals(origins.get("flinkMaster"))) {
      throw new InvalidOptionsException(
          "--flink-master applies to the Flink runner only, but the runner is "
              + options.get("runner")
              + " (from "
              + origins.get("runner")
              + "): drop --flink-master, or run on flink");
    }
    Map<String, String> resolved = new LinkedHashMap<>(options);
    resolved.putIfAbsent("runner", Runner.FLINK.beamName);
    if (isFlink()) {
      resolved.putIfAbsent("flinkMaster", "[local]");
      resolved.putIfAbsent("streaming", "true");
      String master = resolved.get("flinkMaster");
      boolean remote = remoteFlinkMaster().isPresent();
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
    } else {
      // The DirectRunner's checks that no step mutates or fails to encode an element are for
      // testing transforms (Eventide's tests keep them on); they also make a bundle cost a pass
      // over the pipeline's graph, which slows the CLI's pipelines 3-4x. A config may set them.
      resolved.putIfAbsent("enforceImmutability", "false");
      resolved.putIfAbsent("enforceEncodability", "false");
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
      // Beam names neither the option nor where it came from: find the first that fails alone.
      for (Map.Entry<String, String> option : resolved.entrySet()) {
        String arg = "--" + option.getKey() + "=" + option.getValue();
        try {
          PipelineOptionsFactory.fromArgs(arg).create();
        } catch (IllegalArgumentException alone) {
          throw new InvalidOptionsException(
              origins.getOrDefault(option.getKey(), "the defaults")
                  + ": "
                  + option.getKey()
                  + "="
                  + option.getValue()
                  + " is not a valid pipeline option: "
                  + firstLine(alone.getMessage()));
        }
      }
      throw new InvalidOptionsException(
          "invalid pipeline options from "
              + (sources.isEmpty() ? "the defaults" : String.join(" and ", sources))
              + ": "
              + e.getMessage());
    }
  }

  private static String firstLine(String message) {
    return message == null ? "" : message.lines().findFirst().orElse("");
  }

  /** Options that cannot make a pipeline, with a message a user can act on. */
  public static final class InvalidOptionsException extends Exception {
    private static final long serialVersionUID = 1L;

    public InvalidOptionsException(String message) {
      super(message);
    }
  }
}
