package dev.eventide.tiering;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Objects;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CustomCoder;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.joda.time.Instant;

/**
 * A value that {@link TieredWindow} did not put into one of its windows because it came too late
 * for it: later than the allowed lateness, or, with predictive cleanup, later than the cleanup
 * bound of a window whose state was (or will be) deleted. A value of several windows (sliding
 * windows) may be a dead letter for some and counted in others.
 *
 * <pre>{@code
 * TieredWindow.Result<String, Double, Double> out =
 *     readings.apply(
 *         TieredWindow.of(FixedWindows.of(Duration.standardMinutes(1)), median)
 *             .withAllowedLateness(Duration.standardHours(6))
 *             .withOutputCoder(DoubleCoder.of())
 *             .withDeadLetters());
 * PCollection<DeadLetter<String, Double>> tooLate = out.deadLetters();   // key, value, window, why
 * }</pre>
 *
 * @param latenessMillis how long after the window's end the value came (the watermark it met)
 * @param cleanupMillis the window's cleanup bound, which the lateness exceeded
 */
public record DeadLetter<K, V>(
    K key,
    V value,
    Instant timestamp,
    IntervalWindow window,
    long latenessMillis,
    long cleanupMillis,
    Reason reason) {

  /** Why a value is a dead letter. */
  public enum Reason {
    /** Later than the allowed lateness: Beam's own windowing would have dropped it. */
    BEYOND_ALLOWED_LATENESS,
    /** Within the allowed lateness, but later than the cleanup bound predictive cleanup set. */
    BEYOND_CLEANUP_BOUND
  }

  @Override
  public String toString() {
    return "DeadLetter{"
        + reason
        + ": key "
        + key
        + ", value "
        + value
        + " at "
        + timestamp
        + " came "
        + latenessMillis
        + " ms after the end of window "
        + window
        + " (cleanup bound "
        + cleanupMillis
        + " ms)}";
  }

  /** The coder of dead letters with these key and value coders. */
  public static <K, V> Coder<DeadLetter<K, V>> coder(Coder<K> keyCoder, Coder<V> valueCoder) {
    return new DeadLetterCoder<>(keyCoder, valueCoder);
  }

  private static final class DeadLetterCoder<K, V> extends CustomCoder<DeadLetter<K, V>> {
    private static final Coder<IntervalWindow> WINDOW = IntervalWindow.getCoder();
    private static final Reason[] REASONS = Reason.values();
    private final Coder<K> keyCoder;
    private final Coder<V> valueCoder;

    DeadLetterCoder(Coder<K> keyCoder, Coder<V> valueCoder) {
      this.keyCoder = keyCoder;
      this.valueCoder = valueCoder;
    }

    @Override
    public void encode(DeadLetter<K, V> letter, OutputStream out) throws IOException {
      keyCoder.encode(letter.key(), out);
      valueCoder.encode(letter.value(), out);
      WINDOW.encode(letter.window(), out);
      DataOutputStream data = new DataOutputStream(out);
      data.writeLong(letter.timestamp().getMillis());
      data.writeLong(letter.latenessMillis());
      data.writeLong(letter.cleanupMillis());
      data.writeByte(letter.reason().ordinal());
      data.flush();
    }

    @Override
    public DeadLetter<K, V> decode(InputStream in) throws IOException {
      K key = keyCoder.decode(in);
      V value = valueCoder.decode(in);
      IntervalWindow window = WINDOW.decode(in);
      DataInputStream data = new DataInputStream(in);
      Instant timestamp = new Instant(data.readLong());
      long lateness = data.readLong();
      long cleanup = data.readLong();
      int reason = data.readByte();
      if (reason < 0 || reason >= REASONS.length) {
        throw new IOException("not a dead letter's reason: " + reason);
      }
      return new DeadLetter<>(key, value, timestamp, window, lateness, cleanup, REASONS[reason]);
    }

    @Override
    public List<? extends Coder<?>> getCoderArguments() {
      return List.of(keyCoder, valueCoder);
    }

    // Equal coders for equal components: Flink unions streams only of equal element types.
    @Override
    public boolean equals(@Nullable Object other) {
      return other instanceof DeadLetterCoder<?, ?> c
          && c.keyCoder.equals(keyCoder)
          && c.valueCoder.equals(valueCoder);
    }

    @Override
    public int hashCode() {
      return Objects.hash(keyCoder, valueCoder);
    }

    @Override
    public void verifyDeterministic() throws NonDeterministicException {
      verifyDeterministic(this, "key and value coders must be deterministic", keyCoder, valueCoder);
    }
  }
}
