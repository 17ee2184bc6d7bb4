package dev.eventide.tiering;

import java.io.Serializable;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;

/**
 * A function of all of a window's values for one key — a median, bigrams, a model — that {@link
 * TieredWindow} applies at every firing of the window (Aion's window function).
 *
 * <pre>{@code
 * WindowFunction<String, Double, Double> mean =
 *     (sensor, window, values) -> {
 *       double sum = 0;
 *       long count = 0;
 *       for (double v : values) {     // one pass: later values are read back from the store
 *         sum += v;
 *         count++;
 *       }
 *       return sum / count;
 *     };
 * }</pre>
 *
 * <p>The values come lazily: those in memory first, then those of past firings streamed back from
 * the block store, in no guaranteed order. A function may iterate them more than once, but each
 * further pass reads the store again, so one pass is best.
 *
 * @param <K> the key
 * @param <V> the values
 * @param <O> the result of one firing
 */
@FunctionalInterface
public interface WindowFunction<K, V, O> extends Serializable {
  O apply(K key, BoundedWindow window, Iterable<V> values);
}
