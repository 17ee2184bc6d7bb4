package dev.eventide.pipelines.cli;

import dev.eventide.runtime.JobMetrics;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;

/** The run of a workload's job: on another thread, with its progress on stderr. */
final class WorkloadRun {
  private WorkloadRun() {}

  /** What a job returned, and how long it took. */
  record Timed<T>(T result, double seconds) {}

  /**
   * Runs the job, printing "WORKLOAD: N s" and the progress every two seconds until it ends.
   *
   * @throws EventideCli.UsageException as the job threw it
   * @throws IllegalStateException if the job failed, with the message that says why
   */
  static <T> Timed<T> withProgress(
      String workload, PrintWriter err, Callable<T> job, Supplier<String> progress)
      throws InterruptedException {
    ExecutorService executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "eventide-" + workload);
              t.setDaemon(true);
              return t;
            });
    long started = System.nanoTime();
    try {
      Future<T> run = executor.submit(job);
      while (true) {
        try {
          T result = run.get(2, TimeUnit.SECONDS);
          return new Timed<>(result, (System.nanoTime() - started) / 1e9);
        } catch (TimeoutException stillRunning) {
          err.printf(
              Locale.ROOT,
              "%s: %.0f s%s%n",
              workload,
              (System.nanoTime() - started) / 1e9,
              progress.get());
          err.flush();
        } catch (ExecutionException failed) {
          if (failed.getCause() instanceof EventideCli.UsageException usage) {
            throw usage;
          }
          throw new IllegalStateException(
              "the pipeline failed: " + EventideCli.describe(failed.getCause()), failed.getCause());
        }
      }
    } finally {
      executor.shutdownNow();
    }
  }

  /**
   * Runs the pipeline to its end, which must be a successful one, with its progress as {@link
   * #withProgress}.
   */
  static Timed<PipelineResult> pipeline(
      String workload, PrintWriter err, Pipeline pipeline, Supplier<String> progress)
      throws InterruptedException {
    Timed<PipelineResult> run =
        withProgress(
            workload,
            err,
            () -> {
              PipelineResult result = pipeline.run();
              result.waitUntilFinish();
              return result;
            },
            progress);
    if (run.result().getState() != PipelineResult.State.DONE) {
      throw new IllegalStateException("the pipeline ended in state " + run.result().getState());
    }
    return run;
  }

  /** A counter of the job, if the runner reports it. */
  static Optional<Long> counter(PipelineResult result, String namespace, String name) {
    try {
      return Optional.of(JobMetrics.counter(result, namespace, name));
    } catch (UnsupportedOperationException e) {
      return Optional.empty();
    }
  }
}
