package dev.eventide.pipelines;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Objects;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.CustomCoder;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.values.TypeDescriptor;

/**
 * Encodes a record as a value that a composition of Beam's coders encodes, such as nested {@code
 * KV}s of its fields:
 *
 * <pre>{@code
 * record Reading(long time, long value) {
 *   static Coder<Reading> coder() {
 *     return RecordCoder.of(
 *         TypeDescriptor.of(Reading.class),
 *         KvCoder.of(VarLongCoder.of(), VarLongCoder.of()),
 *         r -> KV.of(r.time(), r.value()),
 *         kv -> new Reading(kv.getKey(), kv.getValue()));
 *   }
 * }
 * }</pre>
 *
 * <p>Beam's {@code DelegateCoder} does the same, but compares its functions by identity, so a copy
 * of it that a runner deserialized is not equal to the original (Beam's {@code
 * CoderProperties.coderSerializable} refuses it). A {@code RecordCoder} is equal to another that
 * encodes the same type through an equal coder: a record type has one encoding here.
 *
 * @param <T> the record
 * @param <I> what the composed coder encodes
 */
public final class RecordCoder<T, I> extends CustomCoder<T> {
  private final TypeDescriptor<T> type;
  private final Coder<I> coder;
  private final SerializableFunction<T, I> to;
  private final SerializableFunction<I, T> from;

  private RecordCoder(
      TypeDescriptor<T> type,
      Coder<I> coder,
      SerializableFunction<T, I> to,
      SerializableFunction<I, T> from) {
    this.type = type;
    this.coder = coder;
    this.to = to;
    this.from = from;
  }

  /** The coder of {@code type}: {@code to} maps a record to what {@code coder} encodes. */
  public static <T, I> RecordCoder<T, I> of(
      TypeDescriptor<T> type,
      Coder<I> coder,
      SerializableFunction<T, I> to,
      SerializableFunction<I, T> from) {
    return new RecordCoder<>(
        Objects.requireNonNull(type, "type"),
        Objects.requireNonNull(coder, "coder"),
        Objects.requireNonNull(to, "to"),
        Objects.requireNonNull(from, "from"));
  }

  @Override
  public void encode(T value, OutputStream out) throws IOException {
    coder.encode(to.apply(value), out);
  }

  @Override
  public T decode(InputStream in) throws IOException {
    return from.apply(coder.decode(in));
  }

  @Override
  public List<? extends Coder<?>> getCoderArguments() {
    return List.of(coder);
  }

  /** Deterministic when the composed coder is. */
  @Override
  public void verifyDeterministic() throws NonDeterministicException {
    verifyDeterministic(this, type + " is encoded by a coder that is not deterministic", coder);
  }

  @Override
  public TypeDescriptor<T> getEncodedTypeDescriptor() {
    return type;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof RecordCoder<?, ?> that
        && type.equals(that.type)
        && coder.equals(that.coder);
  }

  @Override
  public int hashCode() {
    return Objects.hash(type, coder);
  }

  @Override
  public String toString() {
    return "RecordCoder(" + type + ", " + coder + ")";
  }
}
