package dev.eventide.testing.runners;

import org.apache.beam.runners.direct.DirectOptions;
import org.apache.beam.runners.direct.DirectRunner;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.runners.flink.TestFlinkRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.testing.TestPipeline;

/**
 * The runners an Eventide pipeline test can run on.
 *
 * <pre>{@code
 * Pipeline p = Pipeline.create(TestRunner.FLINK.options(2));   // embedded Flink, parallelism 2
 * if (TestRunner.DIRECT.honorsTestStreamWatermarks()) {
 *   // exact late panes can be asserted on the DirectRunner
 * }
 * }</pre>
 *
 * <p>{@link #DIRECT} is Beam's DirectRunner with the options {@link TestPipeline} reads from the
 * {@code beamTestPipelineOptions} system property (the DirectRunner by default); it checks
 * immutability and encodability of every element, so it catches bugs that other runners hide.
 * {@link #FLINK} is Flink embedded in the test JVM ({@code --flinkMaster=[local]}) in streaming
 * mode, through Beam's {@link TestFlinkRunner}, so that {@code TestStream} and watermarks behave as
 * they do on a Flink cluster.
 */
public enum TestRunner {
  DIRECT {
    @Override
    public PipelineOptions options(int parallelism) {
      PipelineOptions options = TestPipeline.testingPipelineOptions();
      if (options.getRunner() == null) {
        options.setRunner(DirectRunner.class);
      }
      return options;
    }

    @Override
    public boolean honorsTestStreamWatermarks() {
      return true;
    }
  },
  FLINK {
    @Override
    public PipelineOptions options(int parallelism) {
      if (parallelism < 1) {
        throw new IllegalArgumentException(
            "Flink parallelism must be >= 1, but was " + parallelism);
      }
      FlinkPipelineOptions options = PipelineOptionsFactory.as(FlinkPipelineOptions.class);
      options.setRunner(TestFlinkRunner.class);
      options.setFlinkMaster("[local]");
      options.setStreaming(true);
      options.setParallelism(parallelism);
      // Tests end when their bounded or TestStream input ends; there is nothing to wait for.
      options.setShutdownSourcesAfterIdleMs(0L);
      return options;
    }

    @Override
    public boolean honorsTestStreamWatermarks() {
      return false;
    }
  };

  /**
   * Turns off the DirectRunner's immutability check for {@code p}, for large random differential
   * suites: the check walks the whole pipeline graph for every bundle (a third of such a suite's
   * time, measured), while what it catches — a {@code DoFn} that mutates its input — does not
   * depend on the random input. Encodability stays checked; keep the immutability check in the
   * tests that first exercise a transform's {@code DoFn}s. No effect on other runners.
   */
  public static void skipImmutabilityCheck(Pipeline p) {
    p.getOptions().as(DirectOptions.class).setEnforceImmutability(false);
  }

  /** System property that sets the parallelism of embedded Flink in tests (default 1). */
  public static final String FLINK_PARALLELISM_PROPERTY = "eventide.flink.parallelism";

  /** Returns fresh pipeline options for this runner. */
  public abstract PipelineOptions options(int parallelism);

  /**
   * Whether a {@code TestStream} watermark advance takes effect before the elements added after it.
   * The DirectRunner guarantees this. Flink does not: it may process later elements before the
   * watermark, so an element a test adds as late can land in the on-time pane, and a window with
   * allowed lateness can emit an extra empty pane when the watermark jumps past its end and its
   * garbage-collection time at once (Beam issues #20843, #20844, #20845, open). Tests that assert
   * exact late panes run on runners for which this is true; on the others they assert what every
   * runner guarantees, such as the final result per window.
   */
  public abstract boolean honorsTestStreamWatermarks();

  /** The embedded Flink parallelism from {@value #FLINK_PARALLELISM_PROPERTY}, or 1. */
  public static int defaultFlinkParallelism() {
    String value = System.getProperty(FLINK_PARALLELISM_PROPERTY, "1");
    try {
      return Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          FLINK_PARALLELISM_PROPERTY + " must be an integer, but was '" + value + "'", e);
    }
  }

  @Override
  public String toString() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
