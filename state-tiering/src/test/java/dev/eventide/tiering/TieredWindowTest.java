package dev.eventide.tiering;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.blockstore.BlockStore;
import dev.eventide.testing.runners.PipelineFailures;
import dev.eventide.testing.runners.TestRunner;
import dev.eventide.tiering.TieredVsNative.Summary;
import dev.eventide.tiering.teststore.FaultyBlockStore;
import dev.eventide.tiering.teststore.TestStoreProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.DoubleCoder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.Sessions;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Exact panes on the DirectRunner, validation, and what a damaged store does to a pipeline. */
class TieredWindowTest {
  private static final FixedWindows TEN_SECONDS = FixedWindows.of(Duration.standardSeconds(10));

  private static TimestampedValue<KV<String, Long>> at(long second, String key, long value) {
    return TimestampedValue.of(KV.of(key, value), new Instant(second * 1000));
  }

  /** Key, value and pane of every output, as one line each. */
  private static final class Describe extends DoFn<KV<String, String>, String> {
    @ProcessElement
    public void process(
        @Element KV<String, String> kv,
        PaneInfo pane,
        @Timestamp Instant timestamp,
        OutputReceiver<String> out) {
      out.output(
          String.join(
              " ",
              kv.getKey(),
              kv.getValue(),
              pane.getTiming().toString(),
              "index=" + pane.getIndex(),
              pane.isFirst() ? "first" : "-",
              pane.isLast() ? "last" : "-",
              "t=" + timestamp.getMillis()));
    }
  }

  private static final class StringSummary implements WindowFunction<String, Long, String> {
    @Override
    public String apply(
        String key,
        org.apache.beam.sdk.transforms.windowing.BoundedWindow window,
        Iterable<Long> values) {
      return new Summary().apply(0, window, values);
    }
  }

  @Test
  void firesOnTimeThenOnceForEachWatermarkAdvanceWithLateValues() {
    Pipeline p = Pipeline.create(TestRunner.DIRECT.options(1));
    TestStream<KV<String, Long>> stream =
        TestStream.create(KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of()))
            .addElements(at(1, "a", 1), at(2, "a", 2))
            .advanceWatermarkTo(new Instant(15_000))
            .addElements(at(3, "a", 3), at(5, "b", 7)) // late; b's window starts late
            .advanceWatermarkTo(new Instant(20_000))
            .addElements(at(4, "a", 4), at(6, "a", 5)) // two late values, one pane
            .advanceWatermarkTo(new Instant(25_000))
            .addElements(at(8, "a", 6))
            .advanceWatermarkTo(new Instant(45_000)) // past the allowed lateness
            .addElements(at(9, "a", 100)) // expired: dropped, as by Beam
            .advanceWatermarkToInfinity();
    PCollection<String> panes =
        p.apply(stream)
            .apply(
                TieredWindow.of(TEN_SECONDS, new StringSummary())
                    .withAllowedLateness(Duration.standardSeconds(30))
                    .withStore("memory:" + UUID.randomUUID())
                    .withMemoryBucket(0, 1 << 20))
            .apply(ParDo.of(new Describe()));
    PAssert.that(panes)
        .containsInAnyOrder(
            "a 2:[1, 2] ON_TIME index=0 first - t=9999",
            "a 3:[1, 2, 3] LATE index=1 - - t=9999",
            "b 1:[7] LATE index=0 first - t=9999",
            "a 5:[1, 2, 3, 4, 5] LATE index=2 - - t=9999",
            // A late pane fires at the next watermark advance; this one's (to 45 s) also ends the
            // window's allowed lateness, so it is the window's last pane and says so.
            "a 6:[1, 2, 3, 4, 5, 6] LATE index=3 - last t=9999");
    p.run().waitUntilFinish();
  }

  /** "Never drop": a lateness that reaches the end of Beam's time, as Beam's windowing allows. */
  private static final Duration UNTIL_THE_END_OF_TIME =
      Duration.millis(
          org.apache.beam.sdk.transforms.windowing.BoundedWindow.TIMESTAMP_MAX_VALUE.getMillis());

  @Test
  void aLatenessUntilTheEndOfTimeKeepsEveryLateValue() {
    Pipeline p = Pipeline.create(TestRunner.DIRECT.options(1));
    TestStream<KV<String, Long>> stream =
        TestStream.create(KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of()))
            .addElements(at(1, "a", 1))
            .advanceWatermarkTo(new Instant(1_000_000_000L))
            .addElements(at(2, "a", 2)) // a million seconds late: still kept
            .advanceWatermarkToInfinity();
    PCollection<String> panes =
        p.apply(stream)
            .apply(
                TieredWindow.of(TEN_SECONDS, new StringSummary())
                    .withAllowedLateness(UNTIL_THE_END_OF_TIME)
                    .withStore("memory:" + UUID.randomUUID())
                    .withMemoryBucket(0, 1 << 20))
            .apply(ParDo.of(new Describe()));
    PAssert.that(panes)
        .containsInAnyOrder(
            "a 1:[1] ON_TIME index=0 first - t=9999",
            // No pane at the end of time: nothing new came, as with Beam's own windowing.
            "a 2:[1, 2] LATE index=1 - - t=9999");
    p.run().waitUntilFinish();
  }

  @Test
  void withoutAllowedLatenessTheOnTimePaneIsTheLast() {
    Pipeline p = Pipeline.create(TestRunner.DIRECT.options(1));
    PCollection<String> panes =
        p.apply(
                Create.timestamped(at(1, "a", 1), at(2, "a", 2), at(12, "a", 3))
                    .withCoder(KvCoder.of(StringUtf8Coder.of(), VarLongCoder.of())))
            .apply(
                TieredWindow.of(TEN_SECONDS, new StringSummary())
                    .withStore("memory:" + UUID.randomUUID()))
            .apply(ParDo.of(new Describe()));
    PAssert.that(panes)
        .containsInAnyOrder(
            "a 2:[1, 2] ON_TIME index=0 first last t=9999",
            "a 1:[3] ON_TIME index=0 first last t=19999");
    p.run().waitUntilFinish();
  }

  @Test
  void rejectsWhatItCannotDoWithReasons() {
    assertTrue(
        assertThrows(
                IllegalArgumentException.class,
                () -> TieredWindow.of(Sessions.withGapDuration(Duration.millis(5)), new Summary()))
            .getMessage()
            .contains("merges windows"));
    TieredWindow<Integer, Long, String> window = TieredWindow.of(TEN_SECONDS, new Summary());
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> window.withStore("s3://bucket"))
            .getMessage()
            .contains("expected file:///dir, gs://bucket/prefix, memory:name"));
    assertThrows(IllegalArgumentException.class, () -> window.withMemoryBucket(-1, 10));
    assertThrows(IllegalArgumentException.class, () -> window.withMemoryBucket(1, 0));
    assertThrows(IllegalArgumentException.class, () -> window.withBootstrapFraction(1.5));
    assertThrows(IllegalArgumentException.class, () -> window.withBootstrapFraction(Double.NaN));
    assertThrows(
        IllegalArgumentException.class, () -> window.withAllowedLateness(Duration.millis(-1)));

    Pipeline p = Pipeline.create(TestRunner.DIRECT.options(1));
    PCollection<KV<Double, Long>> doubleKeys =
        p.apply(
            Create.of(KV.of(1.5, 1L)).withCoder(KvCoder.of(DoubleCoder.of(), VarLongCoder.of())));
    IllegalArgumentException nondeterministic =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                doubleKeys.apply(
                    TieredWindow.of(
                            TEN_SECONDS, (WindowFunction<Double, Long, Long>) (k, w, v) -> 1L)
                        .withOutputCoder(VarLongCoder.of())));
    assertTrue(nondeterministic.getMessage().contains("must be deterministic"));

    PCollection<KV<Integer, Long>> ints =
        p.apply(Create.of(KV.of(1, 1L)).withCoder(KvCoder.of(VarIntCoder.of(), VarLongCoder.of())));
    IllegalArgumentException lambda =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                ints.apply(
                    "Lambda",
                    TieredWindow.of(
                        TEN_SECONDS, (WindowFunction<Integer, Long, Long>) (k, w, v) -> 1L)));
    assertTrue(lambda.getMessage().contains("call withOutputCoder"), lambda.getMessage());
  }

  @Test
  void describesItselfInDisplayData() {
    DisplayData data =
        DisplayData.from(
            TieredWindow.of(TEN_SECONDS, new Summary())
                .withAllowedLateness(Duration.standardHours(6))
                .withStore("memory:display")
                .withMemoryBucket(100, 4096));
    assertEquals("memory:display", item(data, "store"));
    assertEquals("100", item(data, "memoryElements"));
    assertEquals("4096", item(data, "memoryBytes"));
    assertEquals("true", item(data, "prestaging"));
  }

  private static String item(DisplayData data, String key) {
    return data.items().stream()
        .filter(i -> i.getKey().equals(key))
        .findFirst()
        .orElseThrow()
        .getValue()
        .toString();
  }

  // --- A damaged store: the same results, or a clear failure; never a silently missing value.

  private static Pipeline comparison(String store) {
    Pipeline p = Pipeline.create(TestRunner.DIRECT.options(1));
    TieredVsNative.compare(
        p,
        TieredVsNative.read(p, TestRunner.DIRECT, TieredVsNative.stream(7, 0.5)),
        FixedWindows.of(Duration.standardSeconds(10)),
        Duration.standardSeconds(30),
        List.of(new TieredVsNative.Variant("store-only", 0, 1 << 20, 0, true, false)),
        store,
        true);
    return p;
  }

  @Test
  void aSlowStoreChangesNothing() {
    String uri = "test:" + UUID.randomUUID() + "?delay=2&seed=3";
    comparison(uri).run().waitUntilFinish();
    assertTrue(((FaultyBlockStore) TestStoreProvider.opened(uri)).operations.get() > 10);
  }

  @Test
  void aFailingStoreFailsThePipelineSayingWhereAndWhy() {
    String uri = "test:" + UUID.randomUUID() + "?fail=0.2&seed=5";
    String messages = PipelineFailures.messagesOfFailedRun(comparison(uri));
    assertTrue(messages.contains("TieredWindow could not"), messages);
    assertTrue(messages.contains("in block store " + uri), messages);
    assertTrue(messages.contains("injected"), messages);
  }

  @Test
  void aDamagedBlockIsFoundByItsChecksumAndNamed() {
    String uri = "test:" + UUID.randomUUID() + "?damage=true";
    String messages = PipelineFailures.messagesOfFailedRun(comparison(uri));
    assertTrue(messages.contains("TieredWindow could not read the state of window"), messages);
    assertTrue(
        messages.matches("(?s).*block [0-9a-f]{32}/[0-9a-f]{64}\\.blk in .* is corrupt.*"),
        messages);
  }

  @Test
  void aFullDiskIsAClearError() {
    String uri = "test:" + UUID.randomUUID() + "?diskBytes=8192";
    String messages = PipelineFailures.messagesOfFailedRun(comparison(uri));
    assertTrue(messages.contains("the disk is full"), messages);
    BlockStore store = TestStoreProvider.opened(uri);
    assertTrue(messages.contains(store.uri()), messages);
  }

  /** Runs a step named "Summaries" over the values first..30 at second v, even ones of key a. */
  private static PipelineResult runSummaries(
      PipelineOptions options, String store, long first, Duration purgeDelay) {
    Pipeline p = Pipeline.create(options);
    List<TimestampedValue<KV<String, Long>>> values = new java.util.ArrayList<>();
    for (long v = first; v <= 30; v++) {
      values.add(at(v, v % 2 == 0 ? "a" : "b", v));
    }
    p.apply(Create.timestamped(values))
        .apply(
            "Summaries",
            TieredWindow.of(TEN_SECONDS, new StringSummary())
                .withAllowedLateness(Duration.standardMinutes(1))
                .withStore(store)
                .withMemoryBucket(0, 1 << 20)
                .withPurgeDelay(purgeDelay));
    PipelineResult result = p.run();
    result.waitUntilFinish();
    return result;
  }

  /** The block files in the store, by directory (owner). */
  private static Map<Path, Long> blockFiles(Path store) throws IOException {
    try (Stream<Path> files = Files.walk(store)) {
      return files
          .filter(f -> f.toString().endsWith(".blk"))
          .collect(Collectors.groupingBy(Path::getParent, Collectors.counting()));
    }
  }

  /** The full name of the step {@link #runSummaries} runs, as block owners begin with it. */
  private static final String SUMMARIES = "Summaries/Window/Window.Assign.out";

  /** Where the step's purge records were kept before they were sharded. */
  private static final String UNSHARDED_RECORDS = "purges of " + SUMMARIES;

  /** The owners of the step's purge records: its 32 shards. */
  private static List<String> recordOwners() {
    return IntStream.range(0, 32).mapToObj(k -> "purges of " + SUMMARIES + ", shard " + k).toList();
  }

  /** The purge records in the store, over all shards. */
  private static int purgeRecords(String uri) throws IOException {
    BlockStore opened = dev.eventide.blockstore.BlockStores.open(uri);
    try {
      int records = 0;
      for (String owner : recordOwners()) {
        records += opened.list(owner).size();
      }
      return records;
    } finally {
      opened.close();
    }
  }

  /**
   * The owners' names are part of what a job leaves in its store: a version that renamed them would
   * neither read the blocks of a job restored from an earlier version's savepoint nor resume its
   * purge records. They are "STEP/Window/Window.Assign.out/KEY/WINDOW" and "purges of
   * STEP/Window/Window.Assign.out, shard K" for K in 0..31 (STEP: the step's full name); the
   * records of versions before the shards, under "purges of STEP/Window/Window.Assign.out", are
   * still read ({@link #anUnreadablePurgeRecordIsCountedAndTheStepRuns}).
   */
  @Test
  void blockOwnersKeepTheNamesEarlierVersionsGaveThem(@TempDir Path store) throws IOException {
    runSummaries(
        TestRunner.DIRECT.options(1), store.toUri().toString(), 1, Duration.standardHours(1));
    assertEquals(
        7, purgeRecords(store.toUri().toString()), "the purge records of the 7 keys and windows");
  }

  /**
   * A purge record the step cannot read (written by another format version, as after a rollback, or
   * damaged) does not stop it from starting: it is skipped, logged and counted, and left in the
   * store. Records are read from every shard and from where versions before the shards kept them.
   */
  @Test
  void anUnreadablePurgeRecordIsCountedAndTheStepRuns(@TempDir Path store) throws IOException {
    String uri = store.toUri().toString();
    BlockStore opened = dev.eventide.blockstore.BlockStores.open(uri);
    try {
      opened.write(UNSHARDED_RECORDS, new byte[] {9, 9});
      opened.write(recordOwners().get(31), new byte[] {9, 9, 9});
    } finally {
      opened.close();
    }
    PipelineResult result = runSummaries(TestRunner.DIRECT.options(1), uri, 1, Duration.ZERO);
    assertEquals(2, TieringMetrics.counter(result, "purgeRecordsUnreadable"));
    assertEquals(
        List.of(1L, 1L),
        List.copyOf(blockFiles(store).values()),
        "only the unreadable records are left");
  }

  /**
   * Every worker that starts the step has no need to read every purge record: each shard of records
   * is taken over, and read, by one worker. On Flink with two workers, each shard is listed once.
   */
  @Test
  void eachShardOfPurgeRecordsIsReadByOneWorkerOfTwo() {
    String uri = "test:" + UUID.randomUUID();
    PipelineResult result =
        runSummaries(TestRunner.FLINK.options(2), uri, 1, Duration.standardHours(1));
    FaultyBlockStore opened = (FaultyBlockStore) TestStoreProvider.opened(uri);
    for (String owner : recordOwners()) {
      assertEquals(1, opened.lists(owner), owner);
    }
    assertEquals(1, opened.lists(UNSHARDED_RECORDS), UNSHARDED_RECORDS);
    assertEquals(32, TieringMetrics.counter(result, "purgeShardsTakenOver"));
  }

  /**
   * Block owners come from the step's name, key and window, not from the pipeline's construction: a
   * later run of the same step (a job restored from a savepoint, or updated) finds the blocks an
   * earlier run left behind and purges them with its own.
   */
  @Test
  void aLaterRunOfTheStepPurgesTheBlocksAnEarlierRunLeft(@TempDir Path store) throws IOException {
    String uri = store.toUri().toString();
    // The earlier run stops before its delayed purge: its blocks stay in the store.
    runSummaries(TestRunner.DIRECT.options(1), uri, 1, Duration.standardHours(1));
    long blocks = blockFiles(store).values().stream().mapToLong(Long::longValue).sum();
    assertEquals(7, purgeRecords(uri), "the purge records, due in an hour");
    assertTrue(blocks > 7, "the blocks of 7 keys and windows, and the records: " + blocks);

    // Other values in the same keys and windows, so other blocks: only their owners tie them to
    // the earlier run's.
    runSummaries(TestRunner.DIRECT.options(1), uri, 3, Duration.ZERO);
    assertEquals(
        7L,
        blockFiles(store).values().stream().mapToLong(Long::longValue).sum(),
        "after the later run purged its windows, only the earlier run's purge records stay");
    assertEquals(7, purgeRecords(uri));
  }
}
