package dev.eventide.tiering.window;

import dev.eventide.tiering.bag.BagState;
import dev.eventide.tiering.store.BlockName;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.values.KV;

/**
 * A {@link BagState} in Beam state cells of one key and window, so the memory bucket and the
 * manifest are checkpointed by the runner with everything else.
 */
final class BeamBagState<T> implements BagState<T> {
  private final org.apache.beam.sdk.state.BagState<T> memory;
  private final ValueState<KV<Long, Long>> memorySize;
  private final ValueState<List<String>> manifest;

  BeamBagState(
      org.apache.beam.sdk.state.BagState<T> memory,
      ValueState<KV<Long, Long>> memorySize,
      ValueState<List<String>> manifest) {
    this.memory = memory;
    this.memorySize = memorySize;
    this.manifest = manifest;
  }

  @Override
  public Iterable<T> memory() {
    return memory.read();
  }

  @Override
  public void addToMemory(T element) {
    memory.add(element);
  }

  @Override
  public void clearMemory() {
    memory.clear();
    memorySize.clear();
  }

  @Override
  public long[] memorySize() {
    KV<Long, Long> size = memorySize.read();
    return size == null ? new long[] {0, 0} : new long[] {size.getKey(), size.getValue()};
  }

  @Override
  public void setMemorySize(long elements, long bytes) {
    memorySize.write(KV.of(elements, bytes));
  }

  @Override
  public List<BlockName> manifest() {
    List<String> paths = manifest.read();
    List<BlockName> names = new ArrayList<>();
    if (paths != null) {
      paths.forEach(path -> names.add(BlockName.parse(path)));
    }
    return names;
  }

  @Override
  public void setManifest(List<BlockName> blocks) {
    if (blocks.isEmpty()) {
      manifest.clear();
      return;
    }
    List<String> paths = new ArrayList<>();
    blocks.forEach(name -> paths.add(name.path()));
    manifest.write(paths);
  }
}
