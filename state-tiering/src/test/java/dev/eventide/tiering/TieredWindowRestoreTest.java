package dev.eventide.tiering;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.testing.runners.RestoreDifferential;
import dev.eventide.testing.streams.GatedReplay;
import java.util.UUID;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A restore changes no result of {@code TieredWindow} (issue 72's table, embedded Flink): fixed
 * windows of 10 s, allowed lateness 5 s; {@code a} at 1, 2 and 3 s; the watermark to 20 s, then 40
 * s (41 s); a completed checkpoint; then one element, on which the task fails once in the second
 * run; then {@code b} at 41 s. (Advances at 12 s and 51 s fire the on-time panes apart from their
 * windows' expiry: a window whose end and expiry the watermark passes at once fires a pane that may
 * or may not be marked last, in any run.) The restored job's watermark starts again at the start of
 * time, and its source replays the element before its watermark: judged by the watermark floor the
 * step had at the checkpoint, the element is decided as in the run without the failure.
 */
class TieredWindowRestoreTest {
  private static final KvCoder<String, Long> CODER =
      KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of());
  private static final Duration LATENESS = Duration.standardSeconds(5);

  /** The schedule with {@code key}@{@code second} after the checkpoint, and late values before. */
  private static GatedReplay<KV<String, Long>> scenario(
      String key, long second, boolean withinLateness) {
    GatedReplay.Builder<KV<String, Long>> replay =
        GatedReplay.builder(CODER)
            .add(KV.of("a", 1L), at(1))
            .add(KV.of("a", 2L), at(2))
            .add(KV.of("a", 3L), at(3))
            .advanceWatermarkTo(at(12)) // [0, 10 s) fires
            .advanceWatermarkTo(at(20)); // and expires
    if (withinLateness) {
      replay.add(KV.of("a", 31L), at(31)).add(KV.of("a", 32L), at(32));
    }
    return replay
        .advanceWatermarkTo(at(40))
        .advanceWatermarkTo(at(41))
        // A checkpoint, and one more: the floor of 41 s, which the first one released to the
        // steps, is in the second, which the failed job restores.
        .holdUntilCheckpointed()
        .holdUntilCheckpointed()
        .add(KV.of(key, second), at(second)) // the task fails on it, once
        .add(KV.of("b", 41L), at(41))
        .advanceWatermarkTo(at(51)) // [40 s, 50 s) fires before the end
        .build();
  }

  /** {@code a}@33 s at watermark 41 s: a late pane of [30 s, 40 s), within the lateness. */
  @ParameterizedTest(name = "dead letters {0}")
  @ValueSource(booleans = {false, true})
  void aLateValueWithinTheLatenessFiresTheSameLatePane(boolean deadLetters) {
    String lines = assertSame("a", 33, true, deadLetters);
    assertTrue(lines.contains("tiered a w30 3 LATE"), lines);
  }

  /** {@code a}@5 s at watermark 41 s: its window expired before the checkpoint. */
  @ParameterizedTest(name = "dead letters {0}")
  @ValueSource(booleans = {false, true})
  void aValueOfAnExpiredWindowStaysDropped(boolean deadLetters) {
    String lines = assertSame("a", 5, false, deadLetters);
    assertTrue(!deadLetters || lines.contains("dead a 5"), lines);
  }

  /** {@code c}@5 s at watermark 41 s: a key never seen, in a window expired long before. */
  @ParameterizedTest(name = "dead letters {0}")
  @ValueSource(booleans = {false, true})
  void aValueOfANewKeyInAnExpiredWindowStaysDropped(boolean deadLetters) {
    String lines = assertSame("c", 5, false, deadLetters);
    assertTrue(!deadLetters || lines.contains("dead c 5"), lines);
  }

  private static String assertSame(
      String key, long second, boolean withinLateness, boolean deadLetters) {
    RestoreDifferential.Outcome outcome =
        RestoreDifferential.run(
            () -> scenario(key, second, withinLateness),
            CODER,
            kv -> kv.getKey().equals(key) && kv.getValue() == second,
            1,
            input -> steps(input, deadLetters));
    outcome.assertSame();
    String lines = String.join("\n", outcome.undisturbed());
    assertTrue(lines.contains("tiered a w0 3 ON_TIME"), lines);
    assertTrue(lines.contains("tiered b w40 1 ON_TIME"), lines);
    return lines;
  }

  private static PCollection<String> steps(
      PCollection<KV<String, Long>> input, boolean deadLetters) {
    TieredWindow<String, Long, Long> window =
        TieredWindow.of(FixedWindows.of(Duration.standardSeconds(10)), new Count())
            .withAllowedLateness(LATENESS)
            .withStore("memory:" + UUID.randomUUID())
            .withOutputCoder(VarLongCoder.of());
    if (!deadLetters) {
      return input.apply(window).apply("Describe", ParDo.of(new DescribePane<Long>("tiered")));
    }
    TieredWindow.Result<String, Long, Long> result = input.apply(window.withDeadLetters());
    return PCollectionList.of(
            result
                .results()
                .apply("Describe", ParDo.of(new DescribePane<Long>("tiered")))
                .apply("Into the global window", Window.into(new GlobalWindows())))
        .and(result.deadLetters().apply("Describe dead", ParDo.of(new DescribeDeadLetter())))
        .apply(Flatten.pCollections());
  }

  private static Instant at(long second) {
    return new Instant(second * 1000);
  }

  private static final class Count implements WindowFunction<String, Long, Long> {
    @Override
    public Long apply(String key, BoundedWindow window, Iterable<Long> values) {
      long count = 0;
      for (Long ignored : values) {
        count++;
      }
      return count;
    }
  }

  /** A pane as a line: its source, key, window start, value, timing, index and last. */
  static final class DescribePane<O> extends DoFn<KV<String, O>, String> {
    private final String source;

    DescribePane(String source) {
      this.source = source;
    }

    @ProcessElement
    public void process(
        @Element KV<String, O> kv,
        BoundedWindow window,
        PaneInfo pane,
        OutputReceiver<String> out) {
      out.output(
          String.join(
              " ",
              source,
              kv.getKey(),
              "w" + ((IntervalWindow) window).start().getMillis() / 1000,
              String.valueOf(kv.getValue()),
              pane.getTiming().toString(),
              "index=" + pane.getIndex(),
              pane.isLast() ? "last" : "-"));
    }
  }

  /** A dead letter as a line: key, value, window start, lateness and reason. */
  static final class DescribeDeadLetter extends DoFn<DeadLetter<String, Long>, String> {
    @ProcessElement
    public void process(@Element DeadLetter<String, Long> d, OutputReceiver<String> out) {
      out.output(
          String.join(
              " ",
              "dead",
              d.key(),
              Long.toString(d.value()),
              "w" + d.window().start().getMillis() / 1000,
              "late=" + d.latenessMillis(),
              d.reason().toString()));
    }
  }
}
