package dev.eventide.tiering;

import dev.eventide.blockstore.internal.bag.ElementCodec;
import java.io.IOException;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.util.CoderUtils;

/** A Beam {@link Coder} as a tiered bag's element codec: each element in the coder's outer form. */
final class CoderCodec<T> implements ElementCodec<T> {
  private final Coder<T> coder;

  CoderCodec(Coder<T> coder) {
    this.coder = coder;
  }

  @Override
  public byte[] encode(T element) throws IOException {
    return CoderUtils.encodeToByteArray(coder, element);
  }

  @Override
  public T decode(byte[] encoded) throws IOException {
    return CoderUtils.decodeFromByteArray(coder, encoded);
  }

  @Override
  public String toString() {
    return coder.toString();
  }
}
