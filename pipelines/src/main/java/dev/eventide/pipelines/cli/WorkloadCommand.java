package dev.eventide.pipelines.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;

/**
 * A workload of {@code eventide run}: a job over a generated stream, on the runner its flags
 * choose, writing into its output directory; a summary on stdout, progress on stderr.
 */
abstract class WorkloadCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Mixin RunnerOptions runner;

  @Mixin StreamOptions stream;

  @Mixin OutputOptions output;

  /** The workload's name on the command line and in its messages. */
  abstract String workload();

  /**
   * Runs the workload.
   *
   * @return the exit code
   */
  abstract int runWorkload() throws Exception;

  @Override
  public final Integer call() throws Exception {
    // "run --events 5 bigrams" would give --events to run (the average workload), not to bigrams.
    CommandLine parent = spec.commandLine().getParent();
    if (parent != null
        && parent.getParseResult() != null
        && !parent.getParseResult().matchedOptions().isEmpty()) {
      String before =
          String.join(
              " ",
              parent.getParseResult().matchedOptions().stream()
                  .map(CommandLine.Model.OptionSpec::longestName)
                  .toList());
      throw new EventideCli.UsageException(
          before
              + " before the workload would be the average workload's: write them after '"
              + workload()
              + "'");
    }
    return runWorkload();
  }

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  PrintWriter err() {
    return spec.commandLine().getErr();
  }

  /** The number of events a run generates unless told: fewer on the slower DirectRunner. */
  long defaultEvents() {
    return runner.direct() ? StreamOptions.DIRECT_RUNNER_EVENTS : StreamOptions.DEFAULT_EVENTS;
  }
}
