package dev.eventide.pipelines.windows;

import dev.eventide.pipelines.RecordCoder;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.beam.sdk.values.TypeParameter;

/**
 * A window's final result for one key: the value of its last pane, once the window's allowed
 * lateness is over, with the window's bounds and how many panes it fired.
 *
 * @param start the window's start, in epoch milliseconds
 * @param end the window's end (exclusive), in epoch milliseconds
 * @param panes how many panes the window fired (1 when no late value changed it)
 * @param value the last pane's value
 * @param <V> the value
 */
public record FinalValue<V>(long start, long end, long panes, V value) {
  /**
   * The coder of {@link FinalValue}: its bounds and pane count, then its value with {@code
   * valueCoder}; deterministic when that coder is.
   */
  public static <V> Coder<FinalValue<V>> coder(Coder<V> valueCoder) {
    KvCoder<KV<Long, Long>, Long> bounds =
        KvCoder.of(KvCoder.of(VarLongCoder.of(), VarLongCoder.of()), VarLongCoder.of());
    return RecordCoder.of(
        new TypeDescriptor<FinalValue<V>>() {}.where(
            new TypeParameter<V>() {}, valueCoder.getEncodedTypeDescriptor()),
        KvCoder.of(bounds, valueCoder),
        f -> KV.of(KV.of(KV.of(f.start(), f.end()), f.panes()), f.value()),
        kv -> {
          KV<KV<Long, Long>, Long> b = kv.getKey();
          return new FinalValue<>(
              b.getKey().getKey(), b.getKey().getValue(), b.getValue(), kv.getValue());
        });
  }
}
