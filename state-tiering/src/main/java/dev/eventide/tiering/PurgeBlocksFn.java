package dev.eventide.tiering;

import dev.eventide.blockstore.BlockName;
import dev.eventide.blockstore.BlockStores;
import dev.eventide.runtime.internal.FlinkCheckpointing;
import dev.eventide.tiering.internal.io.IoScheduler;
import dev.eventide.tiering.internal.io.StagingArea;
import dev.eventide.tiering.internal.io.TieredIo;
import java.io.IOException;
import java.util.List;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.values.KV;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the blocks of the windows that {@link TieredWindowDoFn} purged: at once, or after the
 * purge delay, recorded in the block store first so that a worker that takes over the records
 * performs the purges a stopped worker left.
 *
 * <p>A purge is an element (the blocks' owner and the blocks' paths), not a deletion in the timer
 * that clears the window's state: on a runner that restores checkpoints, the deletion must wait
 * until a checkpoint in which the window is cleared has completed, or a job restored from the
 * checkpoint before it would find its state naming blocks that are gone. On Flink with exactly-once
 * checkpoints this step is {@link RequiresStableInput}: Flink's {@code BufferingDoFnRunner} keeps
 * its input in the checkpoint and hands it over only once that checkpoint completes ({@code
 * DoFnOperator#notifyCheckpointComplete}), and a restore from that checkpoint hands the same purges
 * over again. Elsewhere (the DirectRunner, Flink without checkpoints, where nothing is restored but
 * a savepoint) the purge runs once its element arrives, after the bundle that cleared the window;
 * only the purge delay protects a restore from a savepoint taken before it.
 *
 * <p>The records of delayed purges are kept in {@value #SHARDS} shards, by the purged window's
 * owner ({@link #shardOf}). The elements come keyed by shard from {@link TakeOverShardsFn}: a purge
 * writes its record into its shard, and a take-over (a shard and no purge) resumes the records of
 * the shard, which {@link TakeOverShardsFn} sends once to one worker whenever the shard changes
 * hands.
 */
abstract class PurgeBlocksFn extends DoFn<KV<Integer, KV<String, List<String>>>, Void> {
  /**
   * How many shards of purge records a step has. Part of what a job leaves in its store: a version
   * with another number would not resume the records of the shards it no longer has.
   */
  static final int SHARDS = 32;

  private static final int SHARD_BITS = Integer.numberOfTrailingZeros(SHARDS);

  private static final String METRICS = TieringMetrics.NAMESPACE;
  private static final Counter BLOCKS_PURGED = Metrics.counter(METRICS, "blocksPurged");
  // Purge records a worker skipped when it took their shard over because it could not read them
  // (logged by name, once per worker JVM), and take-overs at which a shard could not be listed.
  private static final Counter UNREADABLE_PURGE_RECORDS =
      Metrics.counter(METRICS, "purgeRecordsUnreadable");
  private static final Counter PURGE_RECORD_LIST_FAILURES =
      Metrics.counter(METRICS, "purgeRecordListFailures");
  private static final Counter PURGE_RECORDS_RESUMED =
      Metrics.counter(METRICS, "purgeRecordsResumed");
  // Delayed purges of this worker that failed and were scheduled again (I/O threads count them;
  // the next purge of any TieredWindow step on the worker reports them).
  private static final Counter PURGE_FAILURES = Metrics.counter(METRICS, "purgeFailures");
  private static final Logger LOG = LoggerFactory.getLogger(PurgeBlocksFn.class);

  /** A purge or a take-over, keyed by shard: the owner of a window's blocks, and the blocks. */
  static Coder<KV<Integer, KV<String, List<String>>>> coder() {
    return KvCoder.of(
        VarIntCoder.of(),
        NullableCoder.of(KvCoder.of(StringUtf8Coder.of(), ListCoder.of(StringUtf8Coder.of()))));
  }

  /** The shard of purge records that a window's purge goes to. */
  static int shardOf(String owner) {
    // String.hashCode is specified by the language: the same in every JVM and version. Its low
    // bits follow an owner's last characters (owners of one step end alike: a window's "...)" or
    // "]"), so the shard is taken from the high bits of the hash times 2^32 / phi (Fibonacci
    // hashing), which every bit of the hash reaches.
    return (owner.hashCode() * 0x9E3779B9) >>> (Integer.SIZE - SHARD_BITS);
  }

  /** The purge of a window's blocks, keyed by its shard. */
  static KV<Integer, KV<String, List<String>>> purge(String owner, List<BlockName> blocks) {
    return KV.of(shardOf(owner), KV.of(owner, blocks.stream().map(BlockName::path).toList()));
  }

  /** The take-over of a shard's records: a shard and no purge. */
  static KV<Integer, KV<String, List<String>>> takeOver(int shard) {
    return KV.of(shard, null);
  }

  /**
   * The purge step for a pipeline run with these options: after the checkpoint where the runner
   * checkpoints exactly once (Flink), else at once.
   *
   * <p>On Flink it also turns on {@code enableStableInputDrain}: without it, the purges still
   * buffered when the input ends (the last windows' purges, at the final watermark) would fail the
   * job ({@code DoFnOperator#flushData}: "There are still watermark holds left"), as they would a
   * drain. With it they run then, before the final checkpoint.
   */
  static PurgeBlocksFn forRunner(TieredWindowDoFn.Settings settings, PipelineOptions options) {
    FlinkCheckpointing flink = FlinkCheckpointing.of(options);
    if (flink == null || !flink.exactlyOnce()) {
      return new Now(settings);
    }
    flink.enableStableInputDrain();
    return new AfterCheckpoint(settings);
  }

  private final TieredWindowDoFn.Settings settings;
  private transient TieredIo io;

  private PurgeBlocksFn(TieredWindowDoFn.Settings settings) {
    this.settings = settings;
  }

  @Setup
  public void setup() throws IOException {
    io =
        new TieredIo(
            BlockStores.open(settings.storeUri()), IoScheduler.shared(), StagingArea.shared());
  }

  @Teardown
  public void teardown() throws IOException {
    if (io != null) {
      io.store().close();
    }
  }

  void process(KV<Integer, KV<String, List<String>>> element) throws IOException {
    long failedPurges = IoScheduler.shared().takeFailedRetries();
    if (failedPurges > 0) {
      PURGE_FAILURES.inc(failedPurges);
    }
    int shard = element.getKey();
    if (element.getValue() == null) {
      resume(records(settings, shard));
      if (shard == 0) {
        resume(legacyRecords(settings));
      }
    } else {
      purge(records(settings, shard), element.getValue());
    }
  }

  /**
   * Schedules the purges recorded under {@code records} that a worker before this one left (also
   * one that ran with another purge delay: a job restored with its delay set to 0). Nothing found
   * here fails the step: a record left in the store waits for the next take-over.
   */
  private void resume(String records) {
    try {
      TieredIo.Resumed resumed = io.resumePurges(records);
      PURGE_RECORDS_RESUMED.inc(resumed.scheduled());
      for (String record : resumed.unreadable()) {
        LOG.warn(
            "TieredWindow {} skipped a purge record it cannot read in block store {}: {}",
            settings.stepName(),
            settings.storeUri(),
            record);
      }
      UNREADABLE_PURGE_RECORDS.inc(resumed.unreadable().size());
    } catch (IOException e) {
      LOG.warn(
          "TieredWindow {} could not list its purge records \"{}\" in block store {}; they stay"
              + " there for the next worker that takes them over: {}",
          settings.stepName(),
          records,
          settings.storeUri(),
          e.toString());
      PURGE_RECORD_LIST_FAILURES.inc();
    }
  }

  private void purge(String records, KV<String, List<String>> purge) throws IOException {
    String owner = purge.getKey();
    List<BlockName> blocks = purge.getValue().stream().map(BlockName::parse).toList();
    long delay = settings.purgeDelay().getMillis();
    try {
      if (delay > 0) {
        io.purgeLater(records, owner, blocks, delay);
      } else {
        io.purgeNow(owner, blocks);
      }
    } catch (IOException e) {
      throw new IOException(
          "TieredWindow "
              + settings.stepName()
              + " could not "
              + (delay > 0 ? "record the purge of " : "purge ")
              + owner
              + " in block store "
              + settings.storeUri()
              + ": "
              + e.getMessage(),
          e);
    }
    BLOCKS_PURGED.inc(blocks.size());
  }

  /**
   * The owner of a shard of the step's purge records: not a window's ({@code stepName/key/window}).
   */
  static String records(TieredWindowDoFn.Settings settings, int shard) {
    return "purges of " + settings.stepName() + ", shard " + shard;
  }

  /** The owner of the step's purge records before they were sharded, read with shard 0's. */
  static String legacyRecords(TieredWindowDoFn.Settings settings) {
    return "purges of " + settings.stepName();
  }

  /** Purges as their elements arrive. */
  static final class Now extends PurgeBlocksFn {
    Now(TieredWindowDoFn.Settings settings) {
      super(settings);
    }

    @ProcessElement
    public void processElement(@Element KV<Integer, KV<String, List<String>>> element)
        throws IOException {
      process(element);
    }
  }

  /** Purges once the checkpoint in which their windows were cleared has completed. */
  static final class AfterCheckpoint extends PurgeBlocksFn {
    AfterCheckpoint(TieredWindowDoFn.Settings settings) {
      super(settings);
    }

    @RequiresStableInput
    @ProcessElement
    public void processElement(@Element KV<Integer, KV<String, List<String>>> element)
        throws IOException {
      process(element);
    }
  }
}
