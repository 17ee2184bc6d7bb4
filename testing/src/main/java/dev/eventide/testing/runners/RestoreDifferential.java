package dev.eventide.testing.runners;

import dev.eventide.testing.streams.GatedReplay;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.runners.flink.FlinkRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.values.PCollection;

/**
 * Runs a pipeline on embedded Flink twice, undisturbed and with one task failure after a completed
 * checkpoint, and compares every output line: a restore must change no result.
 *
 * <pre>{@code
 * RestoreDifferential.Outcome outcome = RestoreDifferential.run(
 *     () -> GatedReplay.builder(VarIntCoder.of())
 *         .add(1, new Instant(1_000))
 *         .advanceWatermarkTo(new Instant(40_000))
 *         .holdUntilCheckpointed()                // the job restores to here
 *         .add(5, new Instant(5_000))            // the task fails on it, once
 *         .build(),
 *     VarIntCoder.of(), x -> x == 5, 1,
 *     input -> input.apply(MapElements.into(TypeDescriptors.strings()).via((Integer x) -> "v" + x)));
 * outcome.assertSame();                          // every output line the same
 * }</pre>
 *
 * <p>The scenario is a {@link GatedReplay}: each watermark advance reaches the consumers before
 * anything more is emitted, so the watermark every element meets is fixed by the schedule and "the
 * same" is well defined. Its {@link GatedReplay.Builder#holdUntilCheckpointed()} holds the stream
 * until a checkpoint of the steps before has completed; the element that {@code failOn} picks (the
 * first it accepts) then fails the task once, before the step under test sees it, in the second run
 * only. The job restores the checkpoint (its source replays what came after) and runs to the end.
 *
 * <p>Outputs are compared as sets of lines: an output that the first attempt emitted after the
 * checkpoint is emitted again by the restored job (a sink sees it twice, as at-least-once sinks
 * do), which is not a change of result. Each run keeps its lines in memory of this JVM.
 */
public final class RestoreDifferential {
  private static final Map<String, Set<String>> LINES = new ConcurrentHashMap<>();
  private static final Map<String, AtomicBoolean> FAILED = new ConcurrentHashMap<>();

  private RestoreDifferential() {}

  /** The lines of both runs. */
  public record Outcome(Set<String> undisturbed, Set<String> restored) {
    /** The lines one run has and the other lacks, each prefixed by the run that has it. */
    public List<String> differences() {
      List<String> differences = new ArrayList<>();
      for (String line : undisturbed) {
        if (!restored.contains(line)) {
          differences.add("undisturbed only: " + line);
        }
      }
      for (String line : restored) {
        if (!undisturbed.contains(line)) {
          differences.add("restored only: " + line);
        }
      }
      return differences;
    }

    /**
     * @throws AssertionError naming the differing lines and both runs' lines, if any differ
     */
    public void assertSame() {
      List<String> differences = differences();
      if (!differences.isEmpty()) {
        throw new AssertionError(
            "a restore changed the results:\n  "
                + String.join("\n  ", differences)
                + "\nundisturbed run: "
                + undisturbed
                + "\nrestored run: "
                + restored);
      }
    }
  }

  /**
   * Runs {@code steps} on the scenario twice and returns both runs' output lines.
   *
   * @param scenario a new replay for each run (a replay's gate serves one run)
   * @param failOn picks the element that fails the task, once, in the second run
   * @param parallelism embedded Flink's parallelism
   * @param steps the steps under test, from the replay's elements to the lines to compare
   * @throws AssertionError if a run fails, or if the failure was not injected
   */
  public static <T> Outcome run(
      Supplier<GatedReplay<T>> scenario,
      Coder<T> coder,
      SerializableFunction<T, Boolean> failOn,
      int parallelism,
      Function<PCollection<T>, PCollection<String>> steps) {
    Set<String> undisturbed = runOnce(scenario.get(), coder, null, parallelism, steps);
    Set<String> restored = runOnce(scenario.get(), coder, failOn, parallelism, steps);
    return new Outcome(undisturbed, restored);
  }

  private static <T> Set<String> runOnce(
      GatedReplay<T> replay,
      Coder<T> coder,
      SerializableFunction<T, Boolean> failOn,
      int parallelism,
      Function<PCollection<T>, PCollection<String>> steps) {
    String run = UUID.randomUUID().toString();
    LINES.put(run, new ConcurrentSkipListSet<>());
    FAILED.put(run, new AtomicBoolean());
    try {
      Pipeline p = Pipeline.create(checkpointedFlink(parallelism));
      PCollection<T> input =
          p.apply("Scenario", replay)
              .setCoder(coder)
              .apply("Fail once", ParDo.of(new FailOnceFn<>(run, failOn)))
              .setCoder(coder);
      input
          .apply(
              "Steps",
              replay.probed(
                  new PTransform<PCollection<T>, PCollection<String>>() {
                    @Override
                    public PCollection<String> expand(PCollection<T> in) {
                      return steps.apply(in);
                    }
                  }))
          .apply("Collect lines", ParDo.of(new CollectFn(run)));
      PipelineResult.State state = p.run().waitUntilFinish();
      if (state != PipelineResult.State.DONE) {
        throw new AssertionError("the " + describe(failOn) + " run ended " + state);
      }
      if (failOn != null && !FAILED.get(run).get()) {
        throw new AssertionError(
            "no element of the scenario was picked to fail the task: the restored run is"
                + " undisturbed");
      }
      return new TreeSet<>(LINES.get(run));
    } finally {
      LINES.remove(run);
      FAILED.remove(run);
    }
  }

  private static String describe(Object failOn) {
    return failOn == null ? "undisturbed" : "restored";
  }

  /**
   * Embedded Flink in streaming mode, checkpointing every 50 ms, restarting a failed job from its
   * last checkpoint (up to three times, 100 ms apart); bundles of one element, so that every step
   * passes each watermark on before the elements after it.
   */
  public static FlinkPipelineOptions checkpointedFlink(int parallelism) {
    FlinkPipelineOptions options = PipelineOptionsFactory.as(FlinkPipelineOptions.class);
    options.setRunner(FlinkRunner.class);
    options.setFlinkMaster("[local]");
    options.setStreaming(true);
    options.setParallelism(parallelism);
    options.setCheckpointingInterval(50L);
    options.setNumberOfExecutionRetries(3);
    options.setExecutionRetryDelay(100L);
    options.setShutdownSourcesAfterIdleMs(0L);
    options.setMaxBundleSize(1L);
    options.setAutoWatermarkInterval(5L);
    return options;
  }

  /** Throws once, on the first element {@code failOn} picks, if it is given. */
  private static final class FailOnceFn<T> extends DoFn<T, T> {
    private final String run;
    private final SerializableFunction<T, Boolean> failOn;

    FailOnceFn(String run, SerializableFunction<T, Boolean> failOn) {
      this.run = run;
      this.failOn = failOn;
    }

    @ProcessElement
    public void process(@Element T element, OutputReceiver<T> out) {
      if (failOn != null
          && Boolean.TRUE.equals(failOn.apply(element))
          && FAILED.get(run).compareAndSet(false, true)) {
        throw new IllegalStateException("a task failure injected by the test on " + element);
      }
      out.output(element);
    }
  }

  private static final class CollectFn extends DoFn<String, Void> {
    private final String run;

    CollectFn(String run) {
      this.run = run;
    }

    @ProcessElement
    public void process(@Element String line) {
      LINES.get(run).add(line);
    }
  }
}
