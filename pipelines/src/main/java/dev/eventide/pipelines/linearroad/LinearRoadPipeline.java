package dev.eventide.pipelines.linearroad;

import com.google.auto.value.AutoValue;
import dev.eventide.generators.LateEvent;
import dev.eventide.generators.LateEventGenerator;
import dev.eventide.pipelines.output.SortedTextFile;
import dev.eventide.pipelines.windows.FinalPanes;
import dev.eventide.pipelines.windows.FinalValue;
import dev.eventide.pipelines.windows.WindowSteps;
import dev.eventide.tiering.TieredWindow;
import dev.eventide.tiering.WindowFunction;
import dev.eventide.transforms.AggregateJoin;
import dev.eventide.transforms.primitives.WindowSpec;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.beam.sdk.Pipeline;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.coders.KvCoder;
import org.apache.beam.sdk.coders.VarIntCoder;
import org.apache.beam.sdk.coders.VarLongCoder;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.windowing.FixedWindows;
import org.apache.beam.sdk.values.KV;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.TypeDescriptors;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * A simplified Linear Road (the Aion paper's variable tolling workload) on Eventide's transforms:
 * vehicles' position reports with late arrivals, per segment and minute (the stream's window):
 *
 * <ol>
 *   <li><b>statistics</b>: reports, distinct vehicles and average speed ({@link TieredWindow});
 *   <li><b>accidents</b>: the distinct vehicles that report speed 0; {@value #STOPPED_FOR_ACCIDENT}
 *       or more make an accident ({@link TieredWindow});
 *   <li><b>tolls</b>: the two joined per segment with {@link AggregateJoin}, and Linear Road's
 *       toll: none where there is an accident, else {@code 2·(vehicles − 50)²} when more than 50
 *       vehicles drove at an average below 40 mph, else none.
 * </ol>
 *
 * <p>Reports come from a {@link LateEventGenerator}: the key is the vehicle, and the value (in
 * {@code [0, }{@value #REPORT_VALUES}{@code )}) gives the segment ({@code value mod }{@value
 * #SEGMENTS}) and the speed: 1% of reports are stopped vehicles, a segment in four is congested
 * (5–45 mph), the others flow (20–80 mph). With 1,000 vehicles and 2,000 reports a minute, each
 * vehicle reports every 30 s on average.
 *
 * <p>Late reports update their minute's statistics and accidents until the allowed lateness ends;
 * later ones are set aside by the watermark they arrived under and counted. The join and the tolls
 * read each minute's final statistics and accidents ({@link FinalPanes}), so a toll is billed once,
 * on complete data, and is the same on every runner; the price is that a minute's toll comes out
 * when its lateness is over.
 */
public final class LinearRoadPipeline {
  /** Namespace of the pipeline's Beam metrics. */
  public static final String METRICS_NAMESPACE = "eventide.linearroad";

  /** The output files, in dataflow order. */
  public static final List<String> OUTPUTS = List.of("statistics", "accidents", "tolls");

  /** Segments of the expressway. */
  public static final int SEGMENTS = 20;

  /** The values a report generator must draw: a segment and a speed step each. */
  public static final long REPORT_VALUES = SEGMENTS * 1_000L;

  /** Distinct stopped vehicles in a segment and minute that make an accident. */
  public static final int STOPPED_FOR_ACCIDENT = 2;

  /** Linear Road's toll applies above this many vehicles in a segment and minute. */
  static final int TOLL_VEHICLES = 50;

  /** ... and below this average speed (mph). */
  static final int TOLL_SPEED = 40;

  /** Extra windows of lateness the windowing tolerates beyond the gate's bound (as in Aion's). */
  static final int WATERMARK_SKEW_WINDOWS = 2;

  private LinearRoadPipeline() {}

  /** What to run: the reports, the allowed lateness, where blocks and output go. */
  @AutoValue
  public abstract static class Settings {
    /** Position reports: the key is the vehicle. */
    public abstract LateEventGenerator reports();

    public abstract Duration allowedLateness();

    /** The {@link TieredWindow} block store's URI. */
    public abstract String store();

    /** How long past windows' blocks outlive their lateness. */
    public abstract Duration purgeDelay();

    public abstract String outputDirectory();

    /**
     * Returns validated settings.
     *
     * @throws IllegalArgumentException naming what is wrong: reports whose values are not {@code
     *     [0, }{@value #REPORT_VALUES}{@code )}, a negative lateness or purge delay
     */
    public static Settings of(
        LateEventGenerator reports,
        Duration allowedLateness,
        String store,
        Duration purgeDelay,
        String outputDirectory) {
      if (reports.maxValue() != REPORT_VALUES) {
        throw new IllegalArgumentException(
            "position reports must draw values in [0, "
                + REPORT_VALUES
                + ") (a segment and a speed), but draw them in [0, "
                + reports.maxValue()
                + ")");
      }
      if (allowedLateness.isShorterThan(Duration.ZERO)) {
        throw new IllegalArgumentException(
            "allowedLateness must be >= 0, but was " + allowedLateness);
      }
      if (purgeDelay.isShorterThan(Duration.ZERO)) {
        throw new IllegalArgumentException("purgeDelay must be >= 0, but was " + purgeDelay);
      }
      return new AutoValue_LinearRoadPipeline_Settings(
          reports, allowedLateness, store, purgeDelay, outputDirectory);
    }

    Duration tolerated() {
      return allowedLateness().plus(reports().window().multipliedBy(WATERMARK_SKEW_WINDOWS));
    }
  }

  /** The segment a report value names. */
  public static int segment(long value) {
    return (int) (value % SEGMENTS);
  }

  /** The speed (mph) a report value gives. */
  public static int speed(long value) {
    int step = (int) (value / SEGMENTS);
    if (step < 10) {
      return 0;
    }
    return congested(segment(value)) ? 5 + step % 41 : 20 + step % 61;
  }

  static boolean congested(int segment) {
    return segment % 4 == 0;
  }

  /** Linear Road's toll for a segment and minute. */
  public static long toll(long vehicles, long reports, long speedSum, long stoppedVehicles) {
    boolean accident = stoppedVehicles >= STOPPED_FOR_ACCIDENT;
    boolean slow = speedSum < (long) TOLL_SPEED * reports; // average below TOLL_SPEED, exactly
    if (accident || vehicles <= TOLL_VEHICLES || !slow) {
      return 0;
    }
    long excess = vehicles - TOLL_VEHICLES;
    return 2 * excess * excess;
  }

  /** Adds the dataflow to {@code pipeline}. */
  public static void build(Pipeline pipeline, Settings settings) {
    Duration minute = settings.reports().window();
    String out = settings.outputDirectory();
    PCollection<KV<Integer, KV<Integer, Integer>>> reports =
        WindowSteps.readWithinLateness(
                pipeline,
                "Reports",
                settings.reports(),
                settings.allowedLateness(),
                METRICS_NAMESPACE)
            .apply(
                "BySegment",
                MapElements.into(
                        TypeDescriptors.kvs(
                            TypeDescriptors.integers(),
                            TypeDescriptors.kvs(
                                TypeDescriptors.integers(), TypeDescriptors.integers())))
                    .via(
                        (LateEvent e) ->
                            KV.of(segment(e.value()), KV.of(e.key(), speed(e.value())))))
            .setCoder(KvCoder.of(VarIntCoder.of(), KvCoder.of(VarIntCoder.of(), VarIntCoder.of())));

    PCollection<KV<Integer, FinalValue<SegmentStatistics>>> statistics =
        perMinute(
            reports,
            "SegmentStatistics",
            (segment, w, values) -> SegmentStatistics.of(values),
            SegmentStatistics.coder(),
            settings);
    WindowSteps.writeFinal(
        statistics,
        "statistics",
        (segment, s) ->
            String.format(
                Locale.ROOT,
                "%s %02d reports=%d vehicles=%d avgSpeed=%.2f",
                new Instant(s.start()),
                segment,
                s.value().reports(),
                s.value().vehicles(),
                s.value().averageSpeed()),
        out);

    PCollection<KV<Integer, FinalValue<Long>>> stopped =
        perMinute(
            reports,
            "AccidentDetection",
            (segment, w, values) -> stoppedVehicles(values),
            VarLongCoder.of(),
            settings);
    WindowSteps.writeFinal(
        stopped,
        "accidents",
        (segment, s) ->
            String.format(
                Locale.ROOT,
                "%s %02d stopped=%d accident=%s",
                new Instant(s.start()),
                segment,
                s.value(),
                s.value() >= STOPPED_FOR_ACCIDENT ? "yes" : "no"),
        out);

    statistics
        .apply(
            "JoinStatisticsAndAccidents",
            AggregateJoin.with(stopped)
                .within(WindowSpec.tumbling(minute))
                .keyedBy(
                    (KV<Integer, FinalValue<SegmentStatistics>> s) -> s.getKey(),
                    KV::getKey,
                    VarIntCoder.of())
                .where((s, a) -> s.getValue().start() == a.getValue().start()))
        .apply(
            "Toll",
            MapElements.into(TypeDescriptors.strings())
                .via(
                    pair -> {
                      FinalValue<SegmentStatistics> s = pair.getKey().getValue();
                      long stoppedVehicles = pair.getValue().getValue().value();
                      return String.format(
                          Locale.ROOT,
                          "%s %02d vehicles=%d avgSpeed=%.2f accident=%s toll=%d",
                          new Instant(s.start()),
                          pair.getKey().getKey(),
                          s.value().vehicles(),
                          s.value().averageSpeed(),
                          stoppedVehicles >= STOPPED_FOR_ACCIDENT ? "yes" : "no",
                          toll(
                              s.value().vehicles(),
                              s.value().reports(),
                              s.value().speedSum(),
                              stoppedVehicles));
                    }))
        .apply("WriteTolls", SortedTextFile.write("tolls", out));
  }

  /** A per-minute window function on {@link TieredWindow}; each minute's final value. */
  private static <O> PCollection<KV<Integer, FinalValue<O>>> perMinute(
      PCollection<KV<Integer, KV<Integer, Integer>>> reports,
      String name,
      WindowFunction<Integer, KV<Integer, Integer>, O> function,
      Coder<O> coder,
      Settings settings) {
    return WindowSteps.tiered(
            reports,
            name,
            TieredWindow.of(FixedWindows.of(settings.reports().window()), function)
                .withAllowedLateness(settings.tolerated())
                .withStore(settings.store())
                .withPurgeDelay(settings.purgeDelay())
                .withOutputCoder(coder),
            METRICS_NAMESPACE)
        .apply(
            name + "Final",
            FinalPanes.<Integer, O>afterLateness(settings.tolerated(), METRICS_NAMESPACE));
  }

  /** The distinct vehicles among the reports that report speed 0. */
  static long stoppedVehicles(Iterable<KV<Integer, Integer>> reports) {
    Set<Integer> stopped = new HashSet<>();
    for (KV<Integer, Integer> report : reports) {
      if (report.getValue() == 0) {
        stopped.add(report.getKey());
      }
    }
    return stopped.size();
  }
}
