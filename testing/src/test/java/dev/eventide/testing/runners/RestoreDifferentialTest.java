package dev.eventide.testing.runners;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.eventide.testing.streams.GatedReplay;
import java.util.List;
import java.util.Set;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.state.TimeDomain;
import org.apache.beam.sdk.state.Timer;
import org.apache.beam.sdk.state.TimerSpec;
import org.apache.beam.sdk.state.TimerSpecs;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

class RestoreDifferentialTest {
  private static final KvCoder<String, Long> CODER =
      KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of());

  private static GatedReplay<KV<String, Long>> scenario() {
    return GatedReplay.builder(CODER)
        .add(KV.of("a", 1L), new Instant(1_000))
        .advanceWatermarkTo(new Instant(40_000))
        .holdUntilCheckpointed()
        .add(KV.of("a", 5L), new Instant(5_000)) // the task fails on it, once
        .add(KV.of("b", 41L), new Instant(41_000))
        .build();
  }

  /** Says whether each value is behind its input watermark: after a restore, a straggler is not. */
  private static final class BehindTheWatermarkFn extends DoFn<KV<String, Long>, String> {
    @TimerId("clock")
    private final TimerSpec clockSpec = TimerSpecs.timer(TimeDomain.EVENT_TIME);

    @ProcessElement
    public void process(
        @Element KV<String, Long> kv,
        @Timestamp Instant timestamp,
        @TimerId("clock") Timer clock,
        OutputReceiver<String> out) {
      boolean behind = clock.getCurrentRelativeTime().isAfter(timestamp);
      out.output(kv.getKey() + " " + kv.getValue() + (behind ? " behind" : " ahead"));
    }

    @OnTimer("clock")
    public void onClock() {}
  }

  @Test
  void aStepThatJudgesByTheRestartedWatermarkIsCaught() {
    RestoreDifferential.Outcome outcome =
        RestoreDifferential.run(
            RestoreDifferentialTest::scenario,
            CODER,
            kv -> kv.getValue() == 5,
            1,
            input -> input.apply(ParDo.of(new BehindTheWatermarkFn())));
    assertEquals(
        List.of("undisturbed only: a 5 behind", "restored only: a 5 ahead"), outcome.differences());
    AssertionError error = assertThrows(AssertionError.class, outcome::assertSame);
    assertEquals(true, error.getMessage().contains("restored only: a 5 ahead"));
  }

  @Test
  void aStepThatDoesNotReadTheWatermarkGivesTheSameLines() {
    RestoreDifferential.Outcome outcome =
        RestoreDifferential.run(
            RestoreDifferentialTest::scenario,
            CODER,
            kv -> kv.getValue() == 5,
            1,
            input ->
                input.apply(
                    MapElements.into(TypeDescriptors.strings())
                        .via((KV<String, Long> kv) -> kv.getKey() + " " + kv.getValue())));
    outcome.assertSame();
    assertEquals(Set.of("a 1", "a 5", "b 41"), outcome.restored());
  }
}
