package dev.eventide.tiering;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.testing.differential.Seeds;
import dev.eventide.testing.runners.RestoreDifferential;
import dev.eventide.testing.streams.GatedReplay;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded schedules run undisturbed and with a task failure after a completed checkpoint, every
 * output line compared ({@link RestoreDifferential}, embedded Flink): {@code TieredWindow} plain
 * and with dead letters side by side, on time, late within the lateness, stragglers of known keys,
 * of new keys and of windows long expired, before and after the failure. Odd seeds at parallelism
 * 1, even ones at 2. Four seeds, times {@code -Deventide.test.seedScale}.
 */
class TieredWindowRestoreDifferentialTest {
  private static final KvCoder<String, Long> CODER =
      KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of());
  private static final long WINDOW = 10_000;
  private static final long LATENESS = 5_000;

  static LongStream seeds() {
    return Seeds.range(1, 4);
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void aRestoreChangesNoLine(long seed) {
    Schedule schedule = Schedule.of(seed);
    long failOn = schedule.failOn();
    RestoreDifferential.Outcome outcome =
        RestoreDifferential.run(
            schedule::replay,
            CODER,
            kv -> kv.getValue() == failOn,
            seed % 2 == 1 ? 1 : 2,
            TieredWindowRestoreDifferentialTest::steps);
    outcome.assertSame();
    String lines = String.join("\n", outcome.undisturbed());
    assertTrue(lines.contains(" LATE "), "some late panes:\n" + lines);
    assertTrue(lines.contains("dead "), "some dead letters:\n" + lines);
  }

  /**
   * A seeded schedule: values with unique numbers over a few keys, watermark advances of at most 4
   * s (less than the lateness, so that no advance passes a window's end and its expiry at once,
   * where the two timers' order makes a pane's "last" flag differ from run to run), and two
   * completed checkpoints before the value the task fails on.
   */
  private record Schedule(List<Object[]> steps, long failOn) {
    static Schedule of(long seed) {
      Random random = new Random(seed);
      List<Object[]> steps = new ArrayList<>();
      long watermark = 30_000; // so that a straggler 20 s behind is in an expired window
      steps.add(new Object[] {watermark});
      long number = 0;
      int count = 30 + random.nextInt(20);
      int failAt = count / 3 + random.nextInt(count / 3);
      long failOn = -1;
      for (int i = 0; i < count; i++) {
        if (i == failAt) {
          steps.add(new Object[] {"checkpoint"});
          steps.add(new Object[] {"checkpoint"});
        }
        String key = "k" + random.nextInt(4);
        long time;
        // The value the task fails on is replayed first after the restore, before any watermark:
        // a straggler, of a known key or a new one, so that it tests what a restore can change.
        int kind = i == failAt ? 7 + (int) (seed % 3) : random.nextInt(10);
        if (kind < 5) {
          time = watermark + random.nextInt(15_000); // on time
        } else if (kind < 7) {
          time = watermark - random.nextInt((int) LATENESS); // late, maybe expired
        } else if (kind < 9) {
          time = watermark - 20_000 - random.nextInt(10_000); // long expired
        } else {
          key = "new" + number; // a key never seen, in an expired window
          time = watermark - 20_000 - random.nextInt(10_000);
        }
        if (i == failAt) {
          failOn = number;
        }
        steps.add(new Object[] {key, number++, time});
        if (random.nextInt(3) == 0) {
          watermark += 1 + random.nextInt(4_000);
          steps.add(new Object[] {watermark});
        }
      }
      return new Schedule(steps, failOn);
    }

    GatedReplay<KV<String, Long>> replay() {
      GatedReplay.Builder<KV<String, Long>> replay = GatedReplay.builder(CODER);
      long watermark = Long.MIN_VALUE;
      for (Object[] step : steps) {
        if (step.length == 1 && step[0] instanceof String) {
          replay.holdUntilCheckpointed();
        } else if (step.length == 1) {
          watermark = (Long) step[0];
          replay.advanceWatermarkTo(new Instant(watermark));
        } else {
          replay.add(KV.of((String) step[0], (Long) step[1]), new Instant((Long) step[2]));
        }
      }
      // Every window fires and expires, at most 4 s at a time.
      for (long end = watermark + 4_000; end < watermark + 80_000; end += 4_000) {
        replay.advanceWatermarkTo(new Instant(end));
      }
      return replay.build();
    }
  }

  private static PCollection<String> steps(PCollection<KV<String, Long>> input) {
    TieredWindow<String, Long, String> window =
        TieredWindow.of(FixedWindows.of(Duration.millis(WINDOW)), new Values())
            .withAllowedLateness(Duration.millis(LATENESS))
            .withStore("memory:" + UUID.randomUUID())
            .withMemoryBucket(2, 1 << 20);
    PCollection<String> plain =
        input
            .apply("Plain", window)
            .apply(
                "Describe plain",
                ParDo.of(new TieredWindowRestoreTest.DescribePane<String>("plain")))
            .apply("Plain into the global window", Window.into(new GlobalWindows()));
    TieredWindow.Result<String, Long, String> gated =
        input.apply("With dead letters", window.withDeadLetters());
    return PCollectionList.of(plain)
        .and(
            gated
                .results()
                .apply(
                    "Describe gated",
                    ParDo.of(new TieredWindowRestoreTest.DescribePane<String>("gated")))
                .apply("Gated into the global window", Window.into(new GlobalWindows())))
        .and(
            gated
                .deadLetters()
                .apply("Describe dead", ParDo.of(new TieredWindowRestoreTest.DescribeDeadLetter())))
        .apply(Flatten.pCollections());
  }

  /** A window's values, sorted: any difference in the multiset shows. */
  private static final class Values implements WindowFunction<String, Long, String> {
    @Override
    public String apply(String key, BoundedWindow window, Iterable<Long> values) {
      List<Long> sorted = new ArrayList<>();
      values.forEach(sorted::add);
      sorted.sort(null);
      return sorted.toString().replace(" ", "");
    }
  }
}
