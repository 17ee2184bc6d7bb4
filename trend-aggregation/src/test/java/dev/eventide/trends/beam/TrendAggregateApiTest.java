package dev.eventide.trends.beam;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.trends.BruteForce;
import dev.eventide.trends.Event;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.query.QueryException;
import dev.eventide.trends.query.Workload;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.StringUtf8Coder;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.schemas.transforms.Convert;
import org.apache.beam.sdk.testing.CoderProperties;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.testing.TestPipeline;
import org.apache.beam.sdk.testing.TestStream;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.GroupByKey;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.WithKeys;
import org.apache.beam.sdk.transforms.display.DisplayData;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.Row;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TrendAggregate}'s contract beyond the values: dead letters for events the workload cannot
 * use, results on time for a downstream GroupByKey, coders, schemas, rows in, validation.
 */
class TrendAggregateApiTest {
  private static final String WORKLOAD =
      """
      QUERY rides
      RETURN COUNT(*)
      PATTERN SEQ(Request, Travel+)
      WHERE [driver] AND Travel.speed < 50
      GROUPBY district
      WITHIN 10 ms SLIDE 10 ms
      """;

  private static List<Event> rides() {
    List<Event> events = new ArrayList<>();
    for (int d = 0; d < 2; d++) {
      for (long t = 0; t < 40; t += 4) {
        events.add(Event.of("Request", t, "driver", 1, "district", d));
        events.add(Event.of("Travel", t + 1, "driver", 1, "district", d, "speed", 10 + t));
        events.add(Event.of("Travel", t + 2, "driver", 2, "district", d, "speed", 20));
        events.add(Event.of("Travel", t + 3, "driver", 1, "district", d, "speed", 30));
      }
    }
    return events;
  }

  private static List<TimestampedValue<Event>> timestamped(List<Event> events) {
    return events.stream().map(e -> TimestampedValue.of(e, new Instant(e.time()))).toList();
  }

  @Test
  void eventsTheWorkloadCannotUseAreDeadLettersWithTheReasonAndCounted() {
    TestPipeline p = TestPipeline.create().enableAbandonedNodeEnforcement(false);
    Workload workload = Workload.parse(WORKLOAD);
    Event noDistrict = Event.of("Travel", 5, "driver", 1, "speed", 3);
    Event textSpeed = Event.of("Travel", 6, "driver", 1, "district", 0, "speed", "fast");
    Event unread = Event.of("Pickup", 7, "driver", 1);
    List<Event> events = new ArrayList<>(rides());
    events.addAll(List.of(noDistrict, textSpeed, unread));
    TrendAggregate.Result out =
        p.apply(Create.timestamped(timestamped(events))).apply(TrendAggregate.of(workload));
    PAssert.that(
            out.deadLetters()
                .apply(
                    MapElements.into(TypeDescriptors.strings())
                        .via(d -> d.event().time() + " " + d.reason())))
        .satisfies(
            lines -> {
              List<String> all = new ArrayList<>();
              lines.forEach(all::add);
              assertEquals(2, all.size(), all.toString());
              assertTrue(
                  all.stream().anyMatch(l -> l.startsWith("5 ") && l.contains("district")),
                  all.toString());
              assertTrue(
                  all.stream().anyMatch(l -> l.startsWith("6 ") && l.contains("speed")),
                  all.toString());
              return null;
            });
    PAssert.that(out.results()).containsInAnyOrder(BruteForce.evaluate(workload, rides()));
    PipelineResult result = p.run();
    result.waitUntilFinish();
    assertEquals(2, TrendMetrics.counter(result, "deadLetters"));
    assertEquals(1, TrendMetrics.counter(result, "eventsIgnored"));
    assertEquals(events.size(), TrendMetrics.counter(result, "events"));
    assertEquals(
        BruteForce.evaluate(workload, rides()).size(),
        TrendMetrics.counter(result, "windowsEmitted"));
  }

  /**
   * The watermark after TrendAggregate is held only by windows not emitted yet: a GroupByKey with
   * Beam's default trigger and no allowed lateness downstream gets every result, on time, while the
   * stream is still running (the watermark moves in steps).
   */
  @Test
  void aDownstreamGroupByKeyGetsEveryResultOnTime() {
    TestPipeline p = TestPipeline.create().enableAbandonedNodeEnforcement(false);
    Workload workload = Workload.parse(WORKLOAD);
    TestStream.Builder<Event> stream = TestStream.create(EventCoder.of());
    List<Event> events = rides();
    for (long step = 0; step < 40; step += 10) {
      for (Event e : events) {
        if (e.time() >= step && e.time() < step + 10) {
          stream = stream.addElements(TimestampedValue.of(e, new Instant(e.time())));
        }
      }
      stream = stream.advanceWatermarkTo(new Instant(step + 15));
    }
    PCollection<TrendResult> results =
        p.apply(stream.advanceWatermarkToInfinity()).apply(TrendAggregate.of(workload)).results();
    PCollection<String> grouped =
        results
            .apply(WithKeys.of((TrendResult r) -> r.query()).withKeyType(TypeDescriptors.strings()))
            .setCoder(KvCoder.of(StringUtf8Coder.of(), TrendResultCoder.of()))
            .apply(GroupByKey.create())
            .apply(ParDo.of(new PaneOf(false)));
    List<String> expected = new ArrayList<>();
    for (TrendResult r : BruteForce.evaluate(workload, events)) {
      String line = r.windowStart() + " ON_TIME";
      if (!expected.contains(line)) {
        expected.add(line);
      }
    }
    PAssert.that(grouped).containsInAnyOrder(expected);
    p.run().waitUntilFinish();
  }

  /**
   * The results carry the allowed lateness, as a windowed GroupByKey's do: a downstream window with
   * none of its own keeps the LATE pane that a late event gives (Beam keeps the larger of a
   * window's lateness and its input's), where it would drop it as late data.
   */
  @Test
  void aDownstreamWindowKeepsTheLatePanes() {
    TestPipeline p = TestPipeline.create().enableAbandonedNodeEnforcement(false);
    Workload workload =
        Workload.parse(
            """
            QUERY bs
            RETURN COUNT(*)
            PATTERN B+
            WITHIN 10 ms SLIDE 10 ms
            """);
    TestStream<Event> stream =
        TestStream.create(EventCoder.of())
            .addElements(
                TimestampedValue.of(Event.of("B", 1), new Instant(1)),
                TimestampedValue.of(Event.of("B", 3), new Instant(3)))
            .advanceWatermarkTo(new Instant(15))
            .addElements(TimestampedValue.of(Event.of("B", 5), new Instant(5)))
            .advanceWatermarkTo(new Instant(30))
            .advanceWatermarkToInfinity();
    PCollection<String> downstream =
        p.apply(stream)
            .apply(TrendAggregate.of(workload).withAllowedLateness(Duration.millis(100)))
            .results()
            .apply(Window.into(FixedWindows.of(Duration.millis(10))))
            .apply(WithKeys.of((TrendResult r) -> r.query()).withKeyType(TypeDescriptors.strings()))
            .setCoder(KvCoder.of(StringUtf8Coder.of(), TrendResultCoder.of()))
            .apply(GroupByKey.create())
            .apply(ParDo.of(new PaneOf(true)));
    // B+ over {1, 3}: 3 trends on time; with the late B at 5, 7, in a late pane that accumulates
    // (the downstream window keeps the accumulation mode of its input, as after a GroupByKey).
    PAssert.that(downstream).containsInAnyOrder("0 ON_TIME [3]", "0 LATE [3, 7]");
    p.run().waitUntilFinish();
  }

  /** A downstream pane: its window's start, its timing and (if asked) the values it holds. */
  private static final class PaneOf extends DoFn<KV<String, Iterable<TrendResult>>, String> {
    private final boolean withValues;

    PaneOf(boolean withValues) {
      this.withValues = withValues;
    }

    @ProcessElement
    public void process(
        @Element KV<String, Iterable<TrendResult>> e, PaneInfo pane, OutputReceiver<String> out) {
      long start = e.getValue().iterator().next().windowStart();
      List<String> values = new ArrayList<>();
      e.getValue().forEach(r -> values.add(r.value()));
      values.sort(null);
      out.output(start + " " + pane.getTiming() + (withValues ? " " + values : ""));
    }
  }

  @Test
  void resultsHaveASchemaAndEventsComeFromRows() {
    TestPipeline p = TestPipeline.create().enableAbandonedNodeEnforcement(false);
    Workload workload = Workload.parse(WORKLOAD);
    Schema schema =
        Schema.builder()
            .addStringField("kind")
            .addInt64Field("at")
            .addInt32Field("driver")
            .addInt64Field("district")
            .addNullableField("speed", Schema.FieldType.DOUBLE)
            .build();
    List<Row> rows = new ArrayList<>();
    for (Event e : rides()) {
      Object speed = e.attribute("speed");
      rows.add(
          Row.withSchema(schema)
              .addValues(
                  e.type(),
                  e.time(),
                  ((BigDecimal) e.attribute("driver")).intValue(),
                  ((BigDecimal) e.attribute("district")).longValue(),
                  speed == null ? null : ((BigDecimal) speed).doubleValue())
              .build());
    }
    PCollection<Row> results =
        p.apply(Create.of(rows).withRowSchema(schema))
            .apply(TrendEvents.fromRows("kind", "at"))
            .apply(TrendAggregate.of(workload))
            .results()
            .apply(Convert.toRows());
    List<Row> expected =
        BruteForce.evaluate(workload, rides()).stream().map(TrendSchemas::toRow).toList();
    PAssert.that(results).containsInAnyOrder(expected);
    p.run().waitUntilFinish();
  }

  @Test
  void fromRowsChecksTheSchemaWhenThePipelineIsBuilt() {
    TestPipeline p = TestPipeline.create().enableAbandonedNodeEnforcement(false);
    Schema schema =
        Schema.builder()
            .addStringField("kind")
            .addNullableField("at", Schema.FieldType.INT64)
            .build();
    PCollection<Row> rows = p.apply(Create.empty(schema));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> rows.apply(TrendEvents.fromRows("kind", "at")));
    assertTrue(
        e.getMessage().contains("'at'") && e.getMessage().contains("nullable"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> rows.apply(TrendEvents.fromRows("type", "at")));
    assertTrue(e.getMessage().contains("no field 'type'"), e.getMessage());
  }

  @Test
  void codersRoundTripAndAreDeterministic() throws Exception {
    Event e = Event.of("Travel", -5, "speed", new BigDecimal("1.50"), "name", "ä", "n", 3);
    CoderProperties.coderDecodeEncodeEqual(EventCoder.of(), e);
    CoderProperties.coderDeterministic(
        EventCoder.of(),
        e,
        Event.of("Travel", -5, "n", 3, "name", "ä", "speed", new BigDecimal("1.50")));
    TrendResult r =
        new TrendResult("q", Map.of("district", BigDecimal.ONE), 0, 10, "12345678901234567890123");
    CoderProperties.coderDecodeEncodeEqual(TrendResultCoder.of(), r);
    CoderProperties.coderDecodeEncodeEqual(
        TrendResultCoder.of(), new TrendResult("q", Map.of(), 0, 10, null));
    CoderProperties.coderDecodeEncodeEqual(DeadLetter.Coder.of(), new DeadLetter(e, "why"));
    assertEquals(e, TrendSchemas.eventFromRow(TrendSchemas.toRow(e)));
    assertEquals(r, TrendSchemas.resultFromRow(TrendSchemas.toRow(r)));
  }

  @Test
  void badConfigurationIsRejectedWithAMessage(@TempDir Path dir) throws Exception {
    Workload workload = Workload.parse(WORKLOAD);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> TrendAggregate.of(workload).withAllowedLateness(Duration.millis(-1)));
    assertTrue(e.getMessage().contains("allowed lateness"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> TrendAggregate.of(new Workload(List.of())));
    assertTrue(e.getMessage().contains("at least one query"), e.getMessage());
    Path file = dir.resolve("bad.queries");
    Files.writeString(file, "QUERY q\nRETURN COUNT(*)\nPATTERN SEQ(A, B+\n");
    QueryException q = assertThrows(QueryException.class, () -> Workload.fromFile(file));
    assertTrue(q.getMessage().startsWith(file + ": line "), q.getMessage());

    TrendAggregate aggregate = TrendAggregate.of(workload);
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> aggregate.withRetainedEventsIn("ftp://somewhere", 10));
    assertTrue(e.getMessage().contains("unsupported block store"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> aggregate.withRetainedEventsIn(dir.toUri().toString(), -1));
    assertTrue(e.getMessage().contains("memory bucket"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class, () -> aggregate.withPurgeDelay(Duration.millis(-1)));
    assertTrue(e.getMessage().contains("purge delay"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> aggregate.withClearedKeyMemory(Duration.millis(-1)));
    assertTrue(e.getMessage().contains("cleared-key memory"), e.getMessage());
    // Retention without lateness keeps nothing: refused when the pipeline is built.
    TestPipeline p = TestPipeline.create().enableAbandonedNodeEnforcement(false);
    PCollection<Event> events = p.apply(Create.empty(EventCoder.of()));
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> events.apply(aggregate.withRetainedEventsIn(dir.toUri().toString(), 10)));
    assertTrue(e.getMessage().contains("needs withAllowedLateness"), e.getMessage());
  }

  @Test
  void displayDataDescribesTheConfiguration(@TempDir Path dir) {
    TrendAggregate aggregate =
        TrendAggregate.of(Workload.parse(WORKLOAD))
            .withAllowedLateness(Duration.standardMinutes(5))
            .withRetainedEventsIn(dir.toUri().toString(), 1000)
            .withPurgeDelay(Duration.standardMinutes(2))
            .withClearedKeyMemory(Duration.standardHours(1));
    DisplayData data = DisplayData.from(aggregate);
    assertTrue(data.items().stream().anyMatch(i -> i.getKey().equals("allowedLateness")));
    assertTrue(
        data.items().stream()
            .anyMatch(
                i ->
                    i.getKey().equals("retainedEventsStore")
                        && i.getValue().equals(dir.toUri().toString())),
        data.toString());
    assertTrue(data.items().stream().anyMatch(i -> i.getKey().equals("retainedInMemory")));
    assertTrue(data.items().stream().anyMatch(i -> i.getKey().equals("purgeDelay")));
    assertTrue(
        data.items().stream()
            .anyMatch(
                i ->
                    i.getKey().equals("clearedKeyMemory")
                        && i.getValue().equals(Duration.standardHours(1).getMillis())),
        data.toString());
  }
}
