package dev.eventide.tiering;

import dev.eventide.blockstore.BlockName;
import dev.eventide.blockstore.internal.bag.BagState;
import dev.eventide.blockstore.internal.bag.BlockInfo;
import java.util.ArrayList;
import java.util.List;
import org.apache.beam.sdk.state.ValueState;
import org.apache.beam.sdk.values.KV;

/**
 * A {@link BagState} in Beam state cells of one key and window, so the memory bucket and the
 * manifest are checkpointed by the runner with everything else. The manifest is a Beam bag of block
 * paths: a new block is one append, however many the window already has. Paths only: a window's
 * blocks are read whole, so their time ranges are not kept.
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
  public List<BlockInfo> manifest() {
    List<BlockInfo> names = new ArrayList<>();
    blocks.read().forEach(path -> names.add(BlockInfo.untimed(BlockName.parse(path))));
    return names;
  }

  @Override
  public void appendToManifest(BlockInfo block) {
    blocks.add(block.name().path());
  }

  @Override
  public void replaceManifest(List<BlockInfo> kept) {
    blocks.clear();
    kept.forEach(this::appendToManifest);
  }

  @Override
  public void clearManifest() {
    blocks.clear();
  }
}
