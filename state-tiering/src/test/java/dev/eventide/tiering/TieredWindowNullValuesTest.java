package dev.eventide.tiering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.testing.runners.TestRunner;
import dev.eventide.testing.streams.GatedReplay;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.runners.flink.FlinkRunner;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.options.PipelineOptionsFactory;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.SimpleFunction;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Null values of a nullable value coder reach the window function as Beam's {@code GroupByKey}
 * delivers them: on time and late, from the memory bucket and from blocks, and after a restore.
 */
class TieredWindowNullValuesTest {
  private static final Duration LATENESS = Duration.standardSeconds(30);
  private static final KvCoder<String, String> CODER =
      KvCoder.of(StringUtf8Coder.of(), NullableCoder.of(StringUtf8Coder.of()));

  /** Every output line of the runs, as key, source, pane and count ({@link Describe}). */
  private static final Set<String> LINES = new ConcurrentSkipListSet<>();

  private static final AtomicBoolean FAILED = new AtomicBoolean();

  /** How many values a window was given, and how many of them were null. */
  private static final class CountValues implements WindowFunction<String, String, Long> {
    @Override
    public Long apply(String key, BoundedWindow window, Iterable<String> values) {
      long count = 0;
      for (String ignored : values) {
        count++;
      }
      return count;
    }
  }

  private static GatedReplay.Builder<KV<String, String>> scenario() {
    return GatedReplay.builder(CODER)
        .add(KV.of("a", "1"), new Instant(100))
        .add(KV.of("a", null), new Instant(9_999))
        .add(KV.of("b", "x"), new Instant(5_000))
        .advanceWatermarkTo(new Instant(10_000)); // both windows [0, 10 s) fire on time
  }

  private static GatedReplay<KV<String, String>> lateValues(
      GatedReplay.Builder<KV<String, String>> scenario) {
    return scenario
        .add(KV.of("a", "late"), new Instant(3_000))
        .add(KV.of("b", null), new Instant(4_000))
        // An advance within the lateness fires the late panes. (Without it the stream would end
        // here: on the DirectRunner the late values would then meet the end of time.)
        .advanceWatermarkTo(new Instant(20_000))
        .build();
  }

  /** The scenario of issue 65, with memory buckets that spill every value or keep them all. */
  @ParameterizedTest(name = "{0}")
  @EnumSource(TestRunner.class)
  void nullValuesAreCountedAsGroupByKeyCountsThem(TestRunner runner) {
    for (long bucket : new long[] {1, 10_000}) {
      LINES.clear();
      PipelineOptions options = runner.options(1);
      Pipeline p = Pipeline.create(options);
      run(p, lateValues(scenario()), bucket);
      p.run().waitUntilFinish();
      assertOutputs("memory bucket " + bucket + " on " + runner);
    }
  }

  /**
   * The late values come after a completed checkpoint, and the task fails on the first of them: the
   * restored job reads the window's null value back from its restored state (memory bucket or
   * blocks) and gives the same panes.
   */
  @ParameterizedTest(name = "memory bucket {0}")
  @ValueSource(longs = {1, 10_000})
  void nullValuesSurviveARestoreOnFlink(long bucket) {
    LINES.clear();
    FAILED.set(false);
    Pipeline p = Pipeline.create(checkpointedFlink());
    run(p, lateValues(scenario().holdUntilCheckpointed()), bucket);
    assertEquals(PipelineResult.State.DONE, p.run().waitUntilFinish());
    assertTrue(FAILED.get(), "the failure was injected");
    assertOutputs("memory bucket " + bucket + " after a restore");
  }

  private static void run(
      Pipeline p, GatedReplay<KV<String, String>> replay, long memoryBucketElements) {
    PCollection<KV<String, String>> input =
        p.apply(replay).setCoder(CODER).apply(ParDo.of(new FailOnce())).setCoder(CODER);
    input
        .apply(
            TieredWindow.of(FixedWindows.of(Duration.standardSeconds(10)), new CountValues())
                .withAllowedLateness(LATENESS)
                .withStore("memory:" + UUID.randomUUID())
                .withMemoryBucket(memoryBucketElements, 1 << 20)
                .withOutputCoder(VarLongCoder.of()))
        .apply("Describe tiered", ParDo.of(new Describe("tiered")));
    // Beam's GroupByKey on Flink cannot hold a null value (SystemReduceFn#processValue adds it to
    // a Flink ListState, which refuses null: docs/runner-facts.md), so the reference groups each
    // value in a list of one, on both runners.
    input
        .apply(
            "Wrap",
            MapElements.via(
                new SimpleFunction<KV<String, String>, KV<String, List<String>>>() {
                  @Override
                  public KV<String, List<String>> apply(KV<String, String> kv) {
                    return KV.of(kv.getKey(), Collections.singletonList(kv.getValue()));
                  }
                }))
        .setCoder(
            KvCoder.of(StringUtf8Coder.of(), ListCoder.of(NullableCoder.of(StringUtf8Coder.of()))))
        .apply(
            Window.<KV<String, List<String>>>into(FixedWindows.of(Duration.standardSeconds(10)))
                .withAllowedLateness(LATENESS)
                .accumulatingFiredPanes())
        .apply(GroupByKey.create())
        .apply(
            "Count native",
            MapElements.via(
                new SimpleFunction<KV<String, Iterable<List<String>>>, KV<String, Long>>() {
                  @Override
                  public KV<String, Long> apply(KV<String, Iterable<List<String>>> kv) {
                    List<String> values = new ArrayList<>();
                    kv.getValue().forEach(values::addAll);
                    return KV.of(kv.getKey(), new CountValues().apply(kv.getKey(), null, values));
                  }
                }))
        .setCoder(KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of()))
        .apply("Describe native", ParDo.of(new Describe("native")));
  }

  /**
   * The on-time pane and the final count of each key, both equal to Beam's: {@code a} has its null
   * on time, {@code b} its late null.
   */
  private static void assertOutputs(String where) {
    Set<String> lines = new TreeSet<>(LINES);
    for (String source : List.of("native", "tiered")) {
      assertTrue(lines.contains("a " + source + " ON_TIME 2"), where + ": " + lines);
      assertTrue(lines.contains("a " + source + " LATE 3"), where + ": " + lines);
      assertTrue(lines.contains("b " + source + " ON_TIME 1"), where + ": " + lines);
      assertTrue(lines.contains("b " + source + " LATE 2"), where + ": " + lines);
    }
    assertEquals(
        4,
        lines.stream().filter(l -> l.contains(" tiered ")).count(),
        where + ": one pane per firing: " + lines);
  }

  private static final class Describe extends DoFn<KV<String, Long>, Void> {
    private final String source;

    Describe(String source) {
      this.source = source;
    }

    @ProcessElement
    public void process(@Element KV<String, Long> kv, PaneInfo pane) {
      LINES.add(String.join(" ", kv.getKey(), source, pane.getTiming().name(), "" + kv.getValue()));
    }
  }

  /** Throws once, on the first late value, in a run that is to fail (a restore run). */
  private static final class FailOnce extends DoFn<KV<String, String>, KV<String, String>> {
    @ProcessElement
    public void process(
        @Element KV<String, String> kv,
        PipelineOptions options,
        OutputReceiver<KV<String, String>> out) {
      if ("late".equals(kv.getValue())
          && options.as(FlinkPipelineOptions.class).getCheckpointingInterval() > 0
          && FAILED.compareAndSet(false, true)) {
        throw new IllegalStateException("a task failure injected by the test");
      }
      out.output(kv);
    }
  }

  /** Embedded Flink checkpointing every 50 ms, restarting a failed job from its checkpoint. */
  private static FlinkPipelineOptions checkpointedFlink() {
    FlinkPipelineOptions options = PipelineOptionsFactory.as(FlinkPipelineOptions.class);
    options.setRunner(FlinkRunner.class);
    options.setFlinkMaster("[local]");
    options.setStreaming(true);
    options.setParallelism(1);
    options.setCheckpointingInterval(50L);
    options.setNumberOfExecutionRetries(3);
    options.setExecutionRetryDelay(100L);
    options.setShutdownSourcesAfterIdleMs(0L);
    return options;
  }
}
