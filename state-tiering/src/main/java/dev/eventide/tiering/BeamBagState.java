package dev.eventide.tiering;

import dev.eventide.blockstore.BlockName;
import dev.eventide.tiering.internal.bag.BagState;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.values.KV;

/**
 * A {@link BagState} in Beam state cells of one key and window, so the memory bucket and the
 * manifest are checkpointed by the runner with everything else. The manifest is a Beam bag of block
 * paths: a new block is one append, however many the window already has.
 */
final class BeamBagState implements BagState {
  private final org.apache.beam.sdk.state.BagState<byte[]> memory;
  private final ValueState<KV<Long, Long>> memorySize;
  private final org.apache.beam.sdk.state.BagState<String> blocks;

  BeamBagState(
      org.apache.beam.sdk.state.BagState<byte[]> memory,
      ValueState<KV<Long, Long>> memorySize,
      org.apache.beam.sdk.state.BagState<String> blocks) {
    this.memory = memory;
    this.memorySize = memorySize;
    this.blocks = blocks;
  }

  @Override
  public Iterable<byte[]> memory() {
    return memory.read();
  }

  @Override
  public void addToMemory(byte[] encoded) {
    memory.add(encoded);
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
    List<BlockName> names = new ArrayList<>();
    blocks.read().forEach(path -> names.add(BlockName.parse(path)));
    return names;
  }

  @Override
  public void appendToManifest(BlockName block) {
    blocks.add(block.path());
  }

  @Override
  public void clearManifest() {
    blocks.clear();
  }
}
