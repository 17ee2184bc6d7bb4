package dev.eventide.pipelines.windows;

import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LateEventGenerator;
import dev.eventide.generators.LateEventSource;
import dev.eventide.pipelines.output.SortedTextFile;
import dev.eventide.tiering.TieredWindow;
import java.io.Serializable;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.metrics.Counter;
import org.apache.beam.sdk.metrics.Metrics;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PBegin;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TupleTagList;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;

/** The steps the pipelines' windowed dataflows share: reading, windowing and writing. */
public final class WindowSteps {
  /** Events per source element: many per bundle on the DirectRunner, which reads ten elements. */
  static final int READ_BATCH = 100;

  private WindowSteps() {}

  /**
   * Reads a generated stream, named {@code "Read" + name}, and sets aside the events that arrive
   * after their tumbling window of the stream's window length is more than {@code allowedLateness}
   * late ({@link LatenessGate}, counted in {@code metricsNamespace}). On the DirectRunner the
   * stream is read in batches ({@link #read}).
   */
  public static PCollection<LateEvent> readWithinLateness(
      Pipeline pipeline,
      String name,
      LateEventGenerator events,
      Duration allowedLateness,
      String metricsNamespace) {
    return readWithinLateness(
        pipeline, name, read(pipeline, events), events, allowedLateness, metricsNamespace);
  }

  /** As above, reading the stream of {@code events} with {@code source}. */
  public static PCollection<LateEvent> readWithinLateness(
      Pipeline pipeline,
      String name,
      PTransform<PBegin, PCollection<LateEvent>> source,
      LateEventGenerator events,
      Duration allowedLateness,
      String metricsNamespace) {
    return pipeline
        .apply("Read" + name, source)
        .apply(
            "Gate" + name,
            ParDo.of(
                    new LatenessGate(
                        FixedWindows.of(events.window()), allowedLateness, metricsNamespace))
                .withOutputTags(LatenessGate.KEPT, TupleTagList.of(LatenessGate.BEYOND_LATENESS)))
        .get(LatenessGate.KEPT);
  }

  /**
   * Applies {@code window} with dead letters, named {@code name}, and returns its results; the
   * values it refuses as too late are counted in {@code metricsNamespace}/{@code
   * eventsDroppedByWindowing}, never lost silently.
   */
  public static <K, V, O> PCollection<KV<K, O>> tiered(
      PCollection<KV<K, V>> values,
      String name,
      TieredWindow<K, V, O> window,
      String metricsNamespace) {
    TieredWindow.Result<K, V, O> result = values.apply(name, window.withDeadLetters());
    result
        .deadLetters()
        .apply(name + "/CountDropped", ParDo.of(new CountDropped<>(metricsNamespace)));
    return result.results();
  }

  /**
   * Reads a generated stream: on the DirectRunner in batches of the events that arrive under one
   * watermark ({@link LateEventSource#readInBatches}: it reads ten source elements per bundle, and
   * each bundle costs a pass over the pipeline's graph); elsewhere one event per source element, so
   * that a runner that polls the watermark between reads (Flink) sees it move as often as the
   * generator moves it, and late events arrive late.
   */
  public static PTransform<PBegin, PCollection<LateEvent>> read(
      Pipeline pipeline, LateEventGenerator events) {
    return pipeline.getOptions().getRunner().getSimpleName().equals("DirectRunner")
        ? LateEventSource.readInBatches(events, READ_BATCH)
        : LateEventSource.read(events);
  }

  /** One output line of a key's final value in a window. */
  public interface Describe<K, V> extends Serializable {
    String line(K key, FinalValue<V> value);
  }

  /** Writes one line per key and window to {@code <directory>/<name>.txt}, sorted. */
  public static <K, V> void writeFinal(
      PCollection<KV<K, FinalValue<V>>> values,
      String name,
      Describe<K, V> describe,
      String directory) {
    values
        .apply(
            name + "Line",
            MapElements.into(TypeDescriptors.strings())
                .via((KV<K, FinalValue<V>> kv) -> describe.line(kv.getKey(), kv.getValue())))
        .apply("Write" + name, SortedTextFile.write(name, directory));
  }

  /** Counts values a windowing refused although the gate kept them. */
  private static final class CountDropped<T> extends DoFn<T, Void> {
    private final Counter dropped;

    CountDropped(String metricsNamespace) {
      this.dropped = Metrics.counter(metricsNamespace, "eventsDroppedByWindowing");
    }

    @ProcessElement
    public void process(@Element T value) {
      dropped.inc();
    }
  }
}
