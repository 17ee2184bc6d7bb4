package dev.eventide.tiering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.testing.runners.TestRunner;
import org.apache.beam.runners.flink.FlinkPipelineOptions;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.reflect.DoFnSignatures;
import org.joda.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Which purge step a pipeline gets: after the checkpoint only where Flink checkpoints exactly once.
 */
class PurgeBlocksFnTest {
  private static final TieredWindowDoFn.Settings SETTINGS =
      new TieredWindowDoFn.Settings(
          "Step/Window.out",
          "memory:purge-fn-test",
          0,
          1 << 20,
          0.5,
          true,
          true,
          Duration.standardSeconds(10),
          Duration.ZERO);

  @Test
  void onFlinkWithExactlyOnceCheckpointsPurgesWaitForTheCheckpointAndDrainAtTheEnd() {
    FlinkPipelineOptions options = TestRunner.FLINK.options(1).as(FlinkPipelineOptions.class);
    options.setCheckpointingInterval(1_000L);

    PurgeBlocksFn fn = PurgeBlocksFn.forRunner(SETTINGS, options);

    assertInstanceOf(PurgeBlocksFn.AfterCheckpoint.class, fn);
    assertTrue(DoFnSignatures.getSignature(fn.getClass()).processElement().requiresStableInput());
    assertTrue(options.getEnableStableInputDrain(), "the last purges run at the end of the input");
  }

  @Test
  void withoutCheckpointsOrWithAtLeastOnceOnesOrOnTheDirectRunnerPurgesRunAtOnce() {
    FlinkPipelineOptions noCheckpoints = TestRunner.FLINK.options(1).as(FlinkPipelineOptions.class);
    FlinkPipelineOptions atLeastOnce = TestRunner.FLINK.options(1).as(FlinkPipelineOptions.class);
    atLeastOnce.setCheckpointingInterval(1_000L);
    atLeastOnce.setCheckpointingMode("AT_LEAST_ONCE");
    PipelineOptions direct = TestRunner.DIRECT.options(1);

    for (PipelineOptions options : new PipelineOptions[] {noCheckpoints, atLeastOnce, direct}) {
      PurgeBlocksFn fn = PurgeBlocksFn.forRunner(SETTINGS, options);
      assertInstanceOf(PurgeBlocksFn.Now.class, fn, options.getRunner().getSimpleName());
      assertFalse(
          DoFnSignatures.getSignature(fn.getClass()).processElement().requiresStableInput());
    }
    assertEquals(false, noCheckpoints.getEnableStableInputDrain());
  }

  /**
   * {@link TakeOverShardsFn} keeps one value per shard, never cleared while the job runs: its state
   * stays bounded because its keys are the shards, not the windows. Every owner, any number of
   * them, maps to one of the 32 shards, also one whose hash is {@code Integer.MIN_VALUE}.
   */
  @Test
  void theTakeOverStateHasOneKeyPerShardHoweverManyWindowsArePurged() {
    java.util.Set<Integer> shards = new java.util.TreeSet<>();
    for (int window = 0; window < 100_000; window++) {
      shards.add(PurgeBlocksFn.shardOf("Step/Window.out/key-" + window + "/[" + window + "]"));
    }
    assertEquals(Integer.MIN_VALUE, "polygenelubricants".hashCode());
    shards.add(PurgeBlocksFn.shardOf("polygenelubricants"));
    assertEquals(32, shards.size(), "shards used: " + shards);
    assertEquals(0, (int) ((java.util.TreeSet<Integer>) shards).first());
    assertEquals(31, (int) ((java.util.TreeSet<Integer>) shards).last());
  }
}
