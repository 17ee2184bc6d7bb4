package dev.eventide.tiering;

import dev.eventide.tiering.internal.io.IoScheduler;
import java.util.List;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.state.StateSpec;
import org.apache.beam.sdk.state.StateSpecs;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;

/**
 * Decides, per shard of purge records, which worker performs the shard's recorded purges: the first
 * to see the shard after it changed hands. Keyed by shard, each shard's state lives on one worker
 * of the runner's choosing; it names the I/O scheduler ({@link IoScheduler#id}, one per worker JVM)
 * that holds the shard's delayed purges. An element of a shard whose state names another scheduler,
 * or none (a new job, a worker that took over after a failure or a rescaling), is preceded by one
 * take-over ({@link PurgeBlocksFn#takeOver}) that makes {@link PurgeBlocksFn} resume the shard's
 * records; later elements pass without one. So the records of a shard are read once per change of
 * hands, by one worker, instead of by every worker at every start.
 *
 * <p>A purge passes through; an element without a purge ({@link TieredWindowDoFn} sends one per
 * shard when it starts, so that every shard is taken over without waiting for a purge) does not.
 * Its state is one value per shard: {@value PurgeBlocksFn#SHARDS} values per step at most, for as
 * long as the job runs.
 */
final class TakeOverShardsFn
    extends DoFn<KV<Integer, KV<String, List<String>>>, KV<Integer, KV<String, List<String>>>> {
  private static final Counter SHARDS_TAKEN_OVER =
      Metrics.counter(TieringMetrics.NAMESPACE, "purgeShardsTakenOver");

  // A state id names Beam state that outlives a pipeline (checkpoints, savepoints): keep it.
  private static final String SCHEDULER = "scheduler";

  @StateId(SCHEDULER)
  private final StateSpec<ValueState<String>> schedulerSpec =
      StateSpecs.value(StringUtf8Coder.of());

  @ProcessElement
  public void processElement(
      @Element KV<Integer, KV<String, List<String>>> element,
      @StateId(SCHEDULER) ValueState<String> scheduler,
      OutputReceiver<KV<Integer, KV<String, List<String>>>> out) {
    String here = IoScheduler.shared().id();
    if (!here.equals(scheduler.read())) {
      scheduler.write(here);
      SHARDS_TAKEN_OVER.inc();
      out.output(PurgeBlocksFn.takeOver(element.getKey()));
    }
    if (element.getValue() != null) {
      out.output(element);
    }
  }
}
