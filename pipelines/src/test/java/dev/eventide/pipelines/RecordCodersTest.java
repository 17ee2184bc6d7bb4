package dev.eventide.pipelines;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.eventide.pipelines.aion.WindowValue;
import dev.eventide.pipelines.bench.tiering.Reading;
import dev.eventide.pipelines.bench.tiering.WindowResult;
import dev.eventide.pipelines.linearroad.SegmentStatistics;
import dev.eventide.pipelines.stocks.Rolling;
import dev.eventide.pipelines.windows.FinalValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.BiFunction;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.DoubleCoder;
import org.apache.beam.sdk.coders.ListCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.testing.CoderProperties;
import org.apache.beam.sdk.util.CoderUtils;
import org.apache.beam.sdk.util.SerializableUtils;
import org.junit.jupiter.api.Test;

/**
 * The pipelines' records are encoded by compositions of Beam's coders: each round-trips seeded
 * random values and the extremes of its fields, is deterministic, and survives Java serialization
 * (a runner ships coders to its workers that way).
 */
class RecordCodersTest {
  private static final long[] EXTREMES = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE};
  private static final String[] TEXTS = {"", "avg=12.5", "\uD83D\uDE00 U+1F600", "a\u200Bb"};

  private static long someLong(Random random, int i) {
    return i < EXTREMES.length * 3 ? EXTREMES[i % EXTREMES.length] : random.nextLong();
  }

  private static String someText(Random random, int i) {
    return i < TEXTS.length ? TEXTS[i] : Long.toString(random.nextLong(), 36);
  }

  /** Checks {@code coder} on 200 values; {@code values} makes the i-th from a seeded random. */
  private static <T> void roundTrips(Coder<T> coder, BiFunction<Random, Integer, T> values)
      throws Exception {
    CoderProperties.coderSerializable(coder);
    coder.verifyDeterministic();
    Coder<T> shipped = SerializableUtils.clone(coder);
    Random random = new Random(35);
    Random again = new Random(35);
    for (int i = 0; i < 200; i++) {
      T value = values.apply(random, i);
      CoderProperties.coderDecodeEncodeEqual(coder, value);
      CoderProperties.coderDeterministic(coder, value, values.apply(again, i));
      assertEquals(
          value,
          CoderUtils.decodeFromByteArray(shipped, CoderUtils.encodeToByteArray(coder, value)),
          "decoded by a serialized copy");
    }
  }

  @Test
  void everyRecordRoundTrips() throws Exception {
    roundTrips(
        WindowValue.coder(),
        (random, i) ->
            new WindowValue(someLong(random, i), someLong(random, i + 1), someText(random, i)));
    roundTrips(
        Rolling.coder(),
        (random, i) ->
            new Rolling(
                someLong(random, i),
                someLong(random, i + 1),
                someLong(random, i + 2),
                someLong(random, i + 3)));
    roundTrips(
        SegmentStatistics.coder(),
        (random, i) ->
            new SegmentStatistics(
                someLong(random, i), someLong(random, i + 1), someLong(random, i + 2)));
    roundTrips(
        WindowResult.coder(),
        (random, i) ->
            new WindowResult(someLong(random, i), someText(random, i), someLong(random, i + 1)));
    roundTrips(
        Reading.coder(),
        (random, i) ->
            new Reading(someLong(random, i), someLong(random, i + 1), someLong(random, i + 2)));
    roundTrips(
        FinalValue.coder(StringUtf8Coder.of()),
        (random, i) ->
            new FinalValue<>(
                someLong(random, i),
                someLong(random, i + 1),
                someLong(random, i + 2),
                someText(random, i)));
  }

  @Test
  void finalValuesNestTheirValueCoderAndAreDeterministicOnlyWhenItIs() throws Exception {
    Coder<FinalValue<List<String>>> nested = FinalValue.coder(ListCoder.of(StringUtf8Coder.of()));
    List<String> values = new ArrayList<>(List.of("a", "", "c"));
    CoderProperties.coderDecodeEncodeEqual(nested, new FinalValue<>(0, 10, 2, values));
    assertThrows(
        Coder.NonDeterministicException.class,
        () -> FinalValue.coder(DoubleCoder.of()).verifyDeterministic());
  }
}
