package dev.eventide.pipelines.soak;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.runners.TransformHierarchy;
import org.apache.flink.runtime.checkpoint.Checkpoints;
import org.apache.flink.runtime.checkpoint.OperatorState;
import org.apache.flink.runtime.checkpoint.OperatorSubtaskState;
import org.apache.flink.runtime.checkpoint.metadata.CheckpointMetadata;
import org.apache.flink.runtime.jobgraph.OperatorID;
import org.apache.flink.runtime.state.IncrementalKeyedStateHandle.HandleAndLocalPath;
import org.apache.flink.runtime.state.IncrementalRemoteKeyedStateHandle;
import org.apache.flink.runtime.state.KeyedStateHandle;
import org.apache.flink.shaded.guava31.com.google.common.hash.Hashing;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.DBOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

/**
 * The live keyed state of a Flink checkpoint, counted per operator and state: every state Beam
 * keeps on Flink, its timers ({@code pending-timers}, {@code _timer_state/...}) and watermark holds
 * included, which no gauge of a step counts. It reads RocksDB incremental checkpoints (the Flink
 * runner's {@code --stateBackend=rocksdb}): each subtask's files are copied to a scratch directory
 * and opened read-only, so deleted entries not yet compacted away are not counted.
 */
final class CheckpointEntries {
  // Beam files a timer in its map state under "family+timerId" and the window's string key.
  private static final Pattern TIMER_ID = Pattern.compile("\\+([\\w-]+)");

  /** A state of an operator, the operator named by its Beam step where known. */
  record State(String operator, String name) {
    @Override
    public String toString() {
      return operator + " " + name;
    }
  }

  private final Map<State, Long> entries =
      new TreeMap<>(Comparator.comparing(State::operator).thenComparing(State::name));
  private final Map<String, Long> timers = new TreeMap<>();
  private long liveBytes;
  private long fileBytes;

  private CheckpointEntries() {}

  /**
   * Reads the checkpoint in {@code directory} (a {@code chk-N} with its {@code _metadata}) of a job
   * built from {@code pipeline}, whose steps name the operators (the Flink runner gives each
   * stateful step's operator its full name as uid).
   */
  static CheckpointEntries read(Path directory, Pipeline pipeline) throws IOException {
    Map<OperatorID, String> names = operatorNames(pipeline);
    CheckpointMetadata metadata;
    try (DataInputStream in =
        new DataInputStream(Files.newInputStream(directory.resolve("_metadata")))) {
      metadata =
          Checkpoints.loadCheckpointMetadata(
              in, CheckpointEntries.class.getClassLoader(), directory.toString());
    }
    RocksDB.loadLibrary();
    CheckpointEntries read = new CheckpointEntries();
    for (OperatorState operator : metadata.getOperatorStates()) {
      String name =
          names.getOrDefault(operator.getOperatorID(), "operator " + operator.getOperatorID());
      for (OperatorSubtaskState subtask : operator.getSubtaskStates().values()) {
        for (KeyedStateHandle handle : subtask.getManagedKeyedState()) {
          if (!(handle instanceof IncrementalRemoteKeyedStateHandle incremental)) {
            throw new IllegalArgumentException(
                "expected a RocksDB incremental checkpoint, but "
                    + name
                    + " has a "
                    + handle.getClass().getSimpleName());
          }
          read.fileBytes += incremental.getStateSize();
          read.count(name, incremental);
        }
      }
    }
    return read;
  }

  /**
   * The latest completed checkpoint of job {@code jobId} under {@code storage} (Flink's {@code
   * chk-N} directories, completed once they hold their {@code _metadata}), or null if none has.
   */
  static Path latest(Path storage, String jobId) throws IOException {
    Path job = storage.resolve(jobId);
    if (!Files.isDirectory(job)) {
      return null;
    }
    Path latest = null;
    long highest = -1;
    try (Stream<Path> dirs = Files.list(job)) {
      for (Path d : dirs.toList()) {
        String name = d.getFileName().toString();
        if (name.startsWith("chk-") && Files.exists(d.resolve("_metadata"))) {
          long n = Long.parseLong(name.substring(4));
          if (n > highest) {
            highest = n;
            latest = d;
          }
        }
      }
    }
    return latest;
  }

  /** The number of a checkpoint directory ({@code chk-N}). */
  static long number(Path checkpoint) {
    return Long.parseLong(checkpoint.getFileName().toString().substring(4));
  }

  /** Live entries per state, every state of every operator with keyed state, empty ones too. */
  Map<State, Long> entries() {
    return entries;
  }

  /** The bytes of the live entries' keys and values, over every state. */
  long liveBytes() {
    return liveBytes;
  }

  /**
   * The bytes of the files the checkpoint refers to (Flink's {@code state_size}): the live entries,
   * compressed, and what RocksDB has not compacted away yet.
   */
  long fileBytes() {
    return fileBytes;
  }

  /** Pending timers per timer id (a Beam timer id, such as {@code ts-fire}), over all operators. */
  Map<String, Long> timers() {
    return timers;
  }

  private void count(String operator, IncrementalRemoteKeyedStateHandle handle) throws IOException {
    Path scratch = Files.createTempDirectory("eventide-checkpoint-");
    try {
      List<HandleAndLocalPath> files = new ArrayList<>(handle.getSharedState());
      files.addAll(handle.getPrivateState());
      for (HandleAndLocalPath file : files) {
        try (InputStream in = file.getHandle().openInputStream()) {
          Files.copy(in, scratch.resolve(file.getLocalPath()));
        }
      }
      countEntries(operator, scratch);
    } catch (RocksDBException e) {
      throw new IOException("cannot read the RocksDB state of " + operator + ": " + e, e);
    } finally {
      try (Stream<Path> walk = Files.walk(scratch)) {
        for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }

  private void countEntries(String operator, Path db) throws RocksDBException {
    List<byte[]> families;
    try (Options options = new Options()) {
      families = RocksDB.listColumnFamilies(options, db.toString());
    }
    List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
    for (byte[] family : families) {
      descriptors.add(new ColumnFamilyDescriptor(family));
    }
    List<ColumnFamilyHandle> handles = new ArrayList<>();
    try (DBOptions options = new DBOptions();
        RocksDB rocks = RocksDB.openReadOnly(options, db.toString(), descriptors, handles)) {
      for (int i = 0; i < families.size(); i++) {
        String state = new String(families.get(i), StandardCharsets.UTF_8);
        boolean timerMap = state.equals("pending-timers");
        long n = 0;
        try (RocksIterator it = rocks.newIterator(handles.get(i))) {
          for (it.seekToFirst(); it.isValid(); it.next()) {
            n++;
            liveBytes += it.key().length + it.value().length;
            if (timerMap) {
              timers.merge(timerId(it.key()), 1L, Long::sum);
            }
          }
        }
        entries.merge(new State(operator, state), n, Long::sum);
      }
      handles.forEach(ColumnFamilyHandle::close);
    }
  }

  private static String timerId(byte[] key) {
    Matcher m = TIMER_ID.matcher(new String(key, StandardCharsets.ISO_8859_1));
    String id = "?";
    while (m.find()) {
      id = m.group(1);
    }
    return id;
  }

  /** Flink's operator id of each step: the murmur3 hash of its uid, the step's full name. */
  private static Map<OperatorID, String> operatorNames(Pipeline pipeline) {
    Collection<String> steps = new ArrayList<>();
    pipeline.traverseTopologically(
        new Pipeline.PipelineVisitor.Defaults() {
          @Override
          public CompositeBehavior enterCompositeTransform(TransformHierarchy.Node node) {
            steps.add(node.getFullName());
            return CompositeBehavior.ENTER_TRANSFORM;
          }

          @Override
          public void visitPrimitiveTransform(TransformHierarchy.Node node) {
            steps.add(node.getFullName());
          }
        });
    Map<OperatorID, String> names = new HashMap<>();
    for (String step : steps) {
      byte[] hash =
          Hashing.murmur3_128(0)
              .newHasher()
              .putString(step, StandardCharsets.UTF_8)
              .hash()
              .asBytes();
      names.put(new OperatorID(hash), step);
    }
    return names;
  }
}
