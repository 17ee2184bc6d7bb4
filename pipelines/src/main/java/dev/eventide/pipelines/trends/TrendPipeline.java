package dev.eventide.pipelines.trends;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.eventide.trends.Event;
import dev.eventide.trends.Sharing;
import dev.eventide.trends.TrendResult;
import dev.eventide.trends.beam.DeadLetter;
import dev.eventide.trends.beam.RefusedChange;
import dev.eventide.trends.beam.TrendAggregate;
import dev.eventide.trends.beam.TrendMetrics;
import dev.eventide.trends.io.ResultJson;
import dev.eventide.trends.query.Workload;
import dev.eventide.trends.query.WorkloadChange;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.PipelineResult;
import org.apache.beam.sdk.options.PipelineOptions;
import org.apache.beam.sdk.transforms.Create;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TimestampedValue;
import org.apache.beam.sdk.values.TypeDescriptor;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * A trend workload over a list of events as a Beam pipeline on {@link TrendAggregate}: what {@code
 * eventide trends --runner} runs. The results are collected in the client: the last pane of each
 * result, as JSON lines in the order of their text (so files from the in-process core, sorted,
 * compare equal).
 */
public final class TrendPipeline {
  private static final ObjectMapper JSON = new ObjectMapper();

  private TrendPipeline() {}

  /**
   * How a run's workload changes reach {@code TrendAggregate}: as a schedule known when the
   * pipeline is built ({@link TrendAggregate#withWorkloadChanges(List)}), or as a stream sent while
   * it runs ({@link TrendAggregate#withWorkloadChanges(PCollection, String)}, its versions kept in
   * the run's work directory). Both give the same results.
   */
  public enum ChangeDelivery {
    SCHEDULE,
    STREAM
  }

  /** How the events go into the pipeline. */
  public enum Input {
    /**
     * A bounded input ({@link EventList}): its watermark stays at the start of time until it is all
     * read, so every window fires at the end and every event waits in state until then.
     */
    BOUNDED,
    /**
     * A stream whose watermark follows the events read ({@link EventStream}), as a live source's
     * would: windows fire while the rest is read. The events must be in time order.
     */
    STREAM;

    PTransform<PBegin, PCollection<Event>> of(List<Event> events) {
      return this == BOUNDED ? EventList.of(events) : EventStream.of(events);
    }
  }

  /** What a run produced. */
  public record Outcome(
      List<String> results, List<String> deadLetters, long latePanes, long millis) {}

  /**
   * Runs the workload over the events (any order) and waits for it.
   *
   * @param work an empty directory every worker and this client can write and read
   * @throws IllegalStateException if the pipeline fails, with the reason
   */
  public static Outcome run(
      Workload workload,
      Sharing sharing,
      Duration allowedLateness,
      List<Event> events,
      PipelineOptions options,
      Path work)
      throws IOException {
    return run(workload, List.of(), sharing, allowedLateness, events, options, work);
  }

  /**
   * Runs the workload, changed on a schedule ({@link TrendAggregate#withWorkloadChanges}), over the
   * events and waits.
   *
   * @param work an empty directory every worker and this client can write and read
   * @throws IllegalArgumentException if a change does not apply to the workload in force at its
   *     time
   * @throws IllegalStateException if the pipeline fails, with the reason
   */
  public static Outcome run(
      Workload workload,
      List<WorkloadChange> changes,
      Sharing sharing,
      Duration allowedLateness,
      List<Event> events,
      PipelineOptions options,
      Path work)
      throws IOException {
    return run(
        workload,
        changes,
        ChangeDelivery.SCHEDULE,
        sharing,
        allowedLateness,
        EventList.of(events),
        options,
        work);
  }

  /**
   * Runs the workload, its changes delivered as {@code delivery} says, over the events and waits.
   *
   * @param work an empty directory every worker and this client can write and read
   * @throws IllegalArgumentException if a change does not apply to the workload in force at its
   *     time (delivered as a schedule)
   * @throws IllegalStateException if the pipeline fails, with the reason, or a change sent as a
   *     stream was refused
   */
  public static Outcome run(
      Workload workload,
      List<WorkloadChange> changes,
      ChangeDelivery delivery,
      Sharing sharing,
      Duration allowedLateness,
      List<Event> events,
      PipelineOptions options,
      Path work)
      throws IOException {
    return run(
        workload,
        changes,
        delivery,
        sharing,
        allowedLateness,
        Input.BOUNDED,
        events,
        options,
        work);
  }

  /**
   * Runs the workload, its changes delivered as {@code delivery} says, over the events going in as
   * {@code input} says, and waits.
   *
   * @param work an empty directory every worker and this client can write and read
   * @throws IllegalArgumentException if a change does not apply to the workload in force at its
   *     time (delivered as a schedule), or the events of a {@link Input#STREAM} are not in time
   *     order
   * @throws IllegalStateException if the pipeline fails, with the reason, or a change sent as a
   *     stream was refused
   */
  public static Outcome run(
      Workload workload,
      List<WorkloadChange> changes,
      ChangeDelivery delivery,
      Sharing sharing,
      Duration allowedLateness,
      Input input,
      List<Event> events,
      PipelineOptions options,
      Path work)
      throws IOException {
    return run(
        workload, changes, delivery, sharing, allowedLateness, input.of(events), options, work);
  }

  /**
   * Runs the workload over the events a source reads (timestamped at their times) and waits.
   *
   * @param work an empty directory every worker and this client can write and read
   * @throws IllegalStateException if the pipeline fails, with the reason
   */
  public static Outcome run(
      Workload workload,
      Sharing sharing,
      Duration allowedLateness,
      PTransform<PBegin, PCollection<Event>> source,
      PipelineOptions options,
      Path work)
      throws IOException {
    return run(
        workload,
        List.of(),
        ChangeDelivery.SCHEDULE,
        sharing,
        allowedLateness,
        source,
        options,
        work);
  }

  private static Outcome run(
      Workload workload,
      List<WorkloadChange> changes,
      ChangeDelivery delivery,
      Sharing sharing,
      Duration allowedLateness,
      PTransform<PBegin, PCollection<Event>> source,
      PipelineOptions options,
      Path work)
      throws IOException {
    Objects.requireNonNull(work, "work");
    Path results = work.resolve("results");
    Path dead = work.resolve("dead-letters");
    Pipeline p = Pipeline.create(options);
    TrendAggregate aggregate = TrendAggregate.of(workload).withSharing(sharing);
    if (delivery == ChangeDelivery.STREAM) {
      PCollection<WorkloadChange> stream =
          p.apply(
              "WorkloadChanges",
              Create.timestamped(
                      changes.stream()
                          .map(c -> TimestampedValue.of(c, new Instant(c.time())))
                          .toList())
                  .withType(TypeDescriptor.of(WorkloadChange.class)));
      aggregate =
          aggregate.withWorkloadChanges(stream, work.resolve("versions").toUri().toString());
    } else {
      aggregate = aggregate.withWorkloadChanges(changes);
    }
    TrendAggregate.Result out =
        p.apply("Events", source)
            .apply("TrendAggregate", aggregate.withAllowedLateness(allowedLateness));
    Path refused = work.resolve("refused-changes");
    if (delivery == ChangeDelivery.STREAM) {
      out.refusedChanges()
          .apply(
              "RefusedChangeLines",
              MapElements.into(TypeDescriptors.strings())
                  .via((RefusedChange r) -> r.change().describe() + ": " + r.reason()))
          .apply("WriteRefusedChanges", ParDo.of(new LineFileSink(refused.toString())));
    }
    out.results()
        .apply("ResultLines", ParDo.of(new ResultLine()))
        .apply("WriteResults", ParDo.of(new LineFileSink(results.toString())));
    out.deadLetters()
        .apply("DeadLetterLines", ParDo.of(new DeadLetterLine()))
        .apply("WriteDeadLetters", ParDo.of(new LineFileSink(dead.toString())));
    long started = System.nanoTime();
    PipelineResult result = p.run();
    PipelineResult.State state = result.waitUntilFinish();
    if (state != PipelineResult.State.DONE) {
      throw new IllegalStateException("the trend pipeline ended in state " + state);
    }
    long millis = (System.nanoTime() - started) / 1_000_000;
    List<String> refusedChanges = LineFileSink.read(refused);
    if (!refusedChanges.isEmpty()) {
      throw new IllegalStateException(
          "the change log refused " + refusedChanges.size() + " changes: " + refusedChanges);
    }
    List<String> deadLetters = LineFileSink.read(dead);
    deadLetters.sort(Comparator.naturalOrder());
    return new Outcome(
        lastPanes(LineFileSink.read(results)),
        deadLetters,
        TrendMetrics.counter(result, "latePanes"),
        millis);
  }

  /** Lines {@code key \t paneIndex \t json}: the JSON of each key's highest pane, sorted. */
  static List<String> lastPanes(List<String> lines) {
    Map<String, String[]> last = new HashMap<>();
    for (String line : lines) {
      String[] f = line.split("\t", 3);
      String[] seen = last.get(f[0]);
      if (seen == null || Long.parseLong(seen[1]) < Long.parseLong(f[1])) {
        last.put(f[0], f);
      }
    }
    List<String> json = new ArrayList<>();
    last.values().forEach(f -> json.add(f[2]));
    json.sort(Comparator.naturalOrder());
    return json;
  }

  private static final class ResultLine extends DoFn<TrendResult, String> {
    @ProcessElement
    public void process(@Element TrendResult r, PaneInfo pane, OutputReceiver<String> out) {
      String key = r.query() + " " + r.group() + " " + r.windowStart() + " " + r.windowEnd();
      out.output(key.replace('\t', ' ') + "\t" + pane.getIndex() + "\t" + ResultJson.format(r));
    }
  }

  private static final class DeadLetterLine extends DoFn<DeadLetter, String> {
    @ProcessElement
    public void process(@Element DeadLetter d, OutputReceiver<String> out) {
      Event e = d.event();
      var event = JSON.createObjectNode().put("type", e.type()).put("time", e.time());
      e.attributes()
          .forEach(
              (name, value) -> {
                if (value instanceof java.math.BigDecimal n) {
                  event.put(name, n);
                } else {
                  event.put(name, (String) value);
                }
              });
      out.output(JSON.createObjectNode().put("reason", d.reason()).set("event", event).toString());
    }
  }

  /** Deletes a work directory (this class's, a soak run's store) and everything in it. */
  public static void deleteWork(Path work) throws IOException {
    if (!Files.exists(work)) {
      return;
    }
    try (var paths = Files.walk(work)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}
