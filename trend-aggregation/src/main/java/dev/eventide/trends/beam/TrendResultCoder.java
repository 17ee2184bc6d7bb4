package dev.eventide.trends.beam;

import dev.eventide.trends.TrendResult;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.beam.sdk.coders.AtomicCoder;
import org.apache.beam.sdk.coders.NullableCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;

/**
 * The Beam coder of {@link TrendResult}: query, GROUPBY values in GROUPBY order, window bounds and
 * the exact value (null for AVG, MIN or MAX without an event to aggregate).
 */
final class TrendResultCoder extends AtomicCoder<TrendResult> {
  private static final TrendResultCoder INSTANCE = new TrendResultCoder();
  private static final long serialVersionUID = 1L;
  private static final NullableCoder<String> VALUE = NullableCoder.of(StringUtf8Coder.of());

  private TrendResultCoder() {}

  public static TrendResultCoder of() {
    return INSTANCE;
  }

  @Override
  public void encode(TrendResult result, OutputStream out) throws IOException {
    StringUtf8Coder.of().encode(result.query(), out);
    EventCoder.encodeValues(result.group(), out);
    VarLongCoder.of().encode(result.windowStart(), out);
    VarLongCoder.of().encode(result.windowEnd(), out);
    VALUE.encode(result.value(), out);
  }

  @Override
  public TrendResult decode(InputStream in) throws IOException {
    String query = StringUtf8Coder.of().decode(in);
    var group = EventCoder.decodeValues(in);
    long start = VarLongCoder.of().decode(in);
    long end = VarLongCoder.of().decode(in);
    return new TrendResult(query, group, start, end, VALUE.decode(in));
  }

  /**
   * Deterministic for results of one workload: a query's GROUPBY values always come in GROUPBY
   * order, so equal results encode to equal bytes.
   */
  @Override
  public void verifyDeterministic() {}
}
