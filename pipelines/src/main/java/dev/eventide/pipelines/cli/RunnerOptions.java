package dev.eventide.pipelines.cli;

import dev.eventide.pipelines.options.RunnerSelection;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.options.PipelineOptions;
import picocli.CommandLine.Option;

/**
 * The runner flags of {@code eventide run}'s workloads and of {@code eventide trends}: which
 * runner, where, how parallel. ({@code eventide trends} runs its core in-process unless one is
 * given.)
 */
final class RunnerOptions {
  /** Flink's largest maximum parallelism, 2^15. */
  static final int MAX_PARALLELISM = 32_768;

  @Option(
      names = "--runner",
      paramLabel = "RUNNER",
      converter = RunnerConverter.class,
      description =
          "direct or flink (or DirectRunner, FlinkRunner) (default: the config file's, else"
              + " flink).")
  RunnerSelection.Runner runner;

  @Option(
      names = "--flink-master",
      paramLabel = "MASTER",
      description =
          "[local] for embedded Flink, or host:port of a session cluster (default: the"
              + " config file's, else [local]).")
  String flinkMaster;

  @Option(names = "--parallelism", paramLabel = "N", description = "Parallelism of the job.")
  Integer parallelism;

  @Option(
      names = "--config",
      paramLabel = "FILE",
      description = "Runner options file, one Beam pipeline option per line (see runner-configs/).")
  Path config;

  /** Whether any of these flags is given. */
  boolean given() {
    return runner != null || flinkMaster != null || parallelism != null || config != null;
  }

  /** Whether the flags or the config file choose the DirectRunner; a bad config is found later. */
  boolean direct() {
    if (runner != null) {
      return runner == RunnerSelection.Runner.DIRECT;
    }
    try {
      return RunnerSelection.fromConfig(Optional.ofNullable(config)).isDirect();
    } catch (RunnerSelection.InvalidOptionsException e) {
      return false;
    }
  }

  /**
   * The pipeline options of these flags, the job named {@code eventide-NAME-MILLIS}: the config
   * file's, overridden by the flags that are set.
   *
   * @throws EventideCli.UsageException with what is wrong
   */
  PipelineOptions create(String jobName) {
    PipelineOptions options = fromFlags();
    options.setJobName("eventide-" + jobName + "-" + System.currentTimeMillis());
    return options;
  }

  private PipelineOptions fromFlags() {
    try {
      RunnerSelection selection = RunnerSelection.fromConfig(Optional.ofNullable(config));
      if (runner != null) {
        selection.runner(runner);
      }
      if (flinkMaster != null) {
        selection.flinkMaster(flinkMaster);
      }
      if (parallelism != null) {
        if (parallelism < 1 || parallelism > MAX_PARALLELISM) {
          throw new EventideCli.UsageException(
              "--parallelism must be from 1 to " + MAX_PARALLELISM + ", but was " + parallelism);
        }
        selection.parallelism(parallelism);
      }
      // Before the job jar is looked for: a wrong address is the first thing to fix.
      Optional<RunnerSelection.FlinkAddress> master = selection.remoteFlinkMaster();
      if (master.isPresent()) {
        FlinkMasterCheck.checkReachable(master.get());
      }
      return selection.create(jobJar());
    } catch (RunnerSelection.InvalidOptionsException e) {
      throw new EventideCli.UsageException(e.getMessage());
    }
  }

  /** Whether the job runs on a Flink session cluster, whose workers may see another disk. */
  static boolean remote(PipelineOptions options) {
    if (!options.getRunner().getSimpleName().startsWith("Flink")) {
      return false;
    }
    String master = options.as(FlinkPipelineOptions.class).getFlinkMaster();
    return !master.equals("[local]") && !master.equals("[auto]");
  }

  /** Whether the job is a Flink job that checkpoints. */
  static boolean checkpointed(PipelineOptions options) {
    if (options.getRunner().getSimpleName().equals("DirectRunner")) {
      return false;
    }
    Long interval = options.as(FlinkPipelineOptions.class).getCheckpointingInterval();
    return interval != null && interval > 0;
  }

  /**
   * The shaded job jar next to this code: {@code target/eventide-pipelines-VERSION-job.jar} beside
   * {@code target/classes} or the module's jar.
   */
  static Optional<Path> jobJar() {
    try {
      Path code =
          Paths.get(
              RunnerOptions.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path target = code.getParent();
      if (target == null || !Files.isDirectory(target)) {
        return Optional.empty();
      }
      try (Stream<Path> files = Files.list(target)) {
        return files
            .filter(f -> f.getFileName().toString().matches("eventide-pipelines-.*-job\\.jar"))
            .findFirst();
      }
    } catch (IOException | URISyntaxException | SecurityException e) {
      return Optional.empty();
    }
  }
}
