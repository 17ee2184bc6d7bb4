package dev.eventide.testing.differential;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.apache.beam.sdk.coders.Coder;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.PTransform;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.DefaultTrigger;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.joda.time.Duration;
import org.joda.time.Instant;

/**
 * Runs two transforms on the same input in one pipeline and asserts that they emit the same
 * multiset of output elements, each observed as (value, timestamp, window, pane timing). On a
 * mismatch the pipeline fails with a readable diff of what only one side emitted, with counts.
 *
 * <pre>{@code
 * Differential.of("native", Filter.by(isEven), "aggregate", AggregateFilter.by(isEven))
 *     .assertSameOutput(input);
 * pipeline.run();
 * }</pre>
 *
 * <p>Values are compared by their encoding under the reference side's output coder (Beam's {@code
 * Coder.structuralValue}), so the coder should be deterministic. {@link #ignoring} leaves fields
 * out of the comparison, for transforms that promise the same values but not the same panes.
 */
public final class Differential<InputT, OutputT> implements Serializable {
  private static final long serialVersionUID = 1L;
  private static final int MAX_DIFF_LINES = 40;

  /** The parts of an observation that can be left out of the comparison. */
  public enum Field {
    TIMESTAMP,
    WINDOW,
    PANE_TIMING
  }

  private final String referenceName;
  private final PTransform<? super PCollection<InputT>, PCollection<OutputT>> reference;
  private final String candidateName;
  private final PTransform<? super PCollection<InputT>, PCollection<OutputT>> candidate;
  private final Set<Field> ignored;

  private Differential(
      String referenceName,
      PTransform<? super PCollection<InputT>, PCollection<OutputT>> reference,
      String candidateName,
      PTransform<? super PCollection<InputT>, PCollection<OutputT>> candidate,
      Set<Field> ignored) {
    if (referenceName.equals(candidateName)) {
      throw new IllegalArgumentException(
          "the two sides need different names, but both are '" + referenceName + "'");
    }
    this.referenceName = referenceName;
    this.reference = reference;
    this.candidateName = candidateName;
    this.candidate = candidate;
    this.ignored = ignored;
  }

  /** Returns a comparison of {@code candidate} against {@code reference} on every field. */
  public static <InputT, OutputT> Differential<InputT, OutputT> of(
      String referenceName,
      PTransform<? super PCollection<InputT>, PCollection<OutputT>> reference,
      String candidateName,
      PTransform<? super PCollection<InputT>, PCollection<OutputT>> candidate) {
    return new Differential<>(
        referenceName, reference, candidateName, candidate, EnumSet.noneOf(Field.class));
  }

  /** Returns the same comparison with {@code fields} left out. */
  public Differential<InputT, OutputT> ignoring(Field... fields) {
    EnumSet<Field> next = ignored.isEmpty() ? EnumSet.noneOf(Field.class) : EnumSet.copyOf(ignored);
    next.addAll(List.of(fields));
    return new Differential<>(referenceName, reference, candidateName, candidate, next);
  }

  /**
   * Applies both transforms to {@code input} and adds an assertion to its pipeline that they
   * produce the same observations; the pipeline fails when it runs if they do not.
   */
  public void assertSameOutput(PCollection<InputT> input) {
    PCollection<OutputT> referenceOut = input.apply(referenceName, reference);
    PCollection<OutputT> candidateOut = input.apply(candidateName, candidate);
    Coder<OutputT> coder = referenceOut.getCoder();
    Observation.ObservationCoder<OutputT> observationCoder =
        new Observation.ObservationCoder<>(coder);
    PCollection<Observation<OutputT>> observed =
        PCollectionList.of(observe(referenceName, referenceOut, observationCoder))
            .and(observe(candidateName, candidateOut, observationCoder))
            .apply("Flatten " + referenceName + " and " + candidateName, Flatten.pCollections());
    PAssert.that("Same output: " + candidateName + " vs " + referenceName, observed)
        .satisfies(new CompareSides<>(referenceName, candidateName, coder, ignored));
  }

  /**
   * Records each output with its timestamp, window and pane, then moves the records into the global
   * window, so that outputs in different windowings can be compared.
   */
  private static <T> PCollection<Observation<T>> observe(
      String side, PCollection<T> output, Coder<Observation<T>> coder) {
    return output
        .apply("Observe " + side, ParDo.of(new ObserveFn<T>(side)))
        .setCoder(coder)
        .apply(
            "Rewindow " + side,
            Window.<Observation<T>>into(new GlobalWindows())
                .triggering(DefaultTrigger.of())
                .withAllowedLateness(Duration.ZERO)
                .discardingFiredPanes());
  }

  private static final class ObserveFn<T> extends DoFn<T, Observation<T>> {
    private final String side;

    ObserveFn(String side) {
      this.side = side;
    }

    @ProcessElement
    public void process(
        @Element T value,
        @Timestamp Instant timestamp,
        BoundedWindow window,
        PaneInfo pane,
        OutputReceiver<Observation<T>> out) {
      out.output(
          new Observation<>(side, value, timestamp, window.toString(), pane.getTiming().name()));
    }
  }

  /** Counts observations per side and fails with a diff if the two multisets differ. */
  private static final class CompareSides<T>
      implements SerializableFunction<Iterable<Observation<T>>, Void> {
    private final String referenceName;
    private final String candidateName;
    private final Coder<T> coder;
    private final Set<Field> ignored;

    CompareSides(String referenceName, String candidateName, Coder<T> coder, Set<Field> ignored) {
      this.referenceName = referenceName;
      this.candidateName = candidateName;
      this.coder = coder;
      this.ignored = ignored;
    }

    @Override
    public Void apply(Iterable<Observation<T>> observations) {
      Map<Key, long[]> counts = new LinkedHashMap<>();
      long[] totals = new long[2];
      for (Observation<T> o : observations) {
        int side = o.side.equals(referenceName) ? 0 : 1;
        totals[side]++;
        counts.computeIfAbsent(key(o), k -> new long[2])[side]++;
      }
      List<String> onlyReference = new ArrayList<>();
      List<String> onlyCandidate = new ArrayList<>();
      counts.entrySet().stream()
          .sorted(Comparator.comparing((Map.Entry<Key, long[]> e) -> e.getKey().sortKey()))
          .forEach(
              e -> {
                long surplus = e.getValue()[0] - e.getValue()[1];
                if (surplus > 0) {
                  onlyReference.add(surplus + " × " + e.getKey());
                } else if (surplus < 0) {
                  onlyCandidate.add(-surplus + " × " + e.getKey());
                }
              });
      if (onlyReference.isEmpty() && onlyCandidate.isEmpty()) {
        return null;
      }
      StringBuilder diff =
          new StringBuilder(
              String.format(
                  "outputs differ: %s emitted %d elements, %s emitted %d (compared on value%s)%n",
                  referenceName, totals[0], candidateName, totals[1], comparedFields()));
      appendSection(diff, referenceName, candidateName, onlyReference);
      appendSection(diff, candidateName, referenceName, onlyCandidate);
      throw new AssertionError(diff.toString());
    }

    private String comparedFields() {
      StringBuilder out = new StringBuilder();
      for (Field field : Field.values()) {
        if (!ignored.contains(field)) {
          out.append(", ").append(field.name().toLowerCase(java.util.Locale.ROOT));
        }
      }
      return out.toString();
    }

    private static void appendSection(
        StringBuilder diff, String side, String other, List<String> lines) {
      if (lines.isEmpty()) {
        return;
      }
      diff.append(String.format("  emitted by %s, missing from %s:%n", side, other));
      lines.stream()
          .limit(MAX_DIFF_LINES)
          .forEach(line -> diff.append("    ").append(line).append(System.lineSeparator()));
      if (lines.size() > MAX_DIFF_LINES) {
        diff.append(String.format("    ... and %d more%n", lines.size() - MAX_DIFF_LINES));
      }
    }

    private Key key(Observation<T> o) {
      return new Key(
          coder.structuralValue(o.value),
          String.valueOf(o.value),
          ignored.contains(Field.TIMESTAMP) ? null : o.timestamp,
          ignored.contains(Field.WINDOW) ? null : o.window,
          ignored.contains(Field.PANE_TIMING) ? null : o.paneTiming);
    }
  }

  /** An observation reduced to the compared fields; {@code rendering} is for display only. */
  private static final class Key {
    final Object value;
    final String rendering;
    final Instant timestamp;
    final String window;
    final String paneTiming;

    Key(Object value, String rendering, Instant timestamp, String window, String paneTiming) {
      this.value = value;
      this.rendering = rendering;
      this.timestamp = timestamp;
      this.window = window;
      this.paneTiming = paneTiming;
    }

    String sortKey() {
      return String.format(
          "%020d %s %s %s",
          timestamp == null ? 0 : timestamp.getMillis() - Long.MIN_VALUE / 2,
          window,
          paneTiming,
          rendering);
    }

    @Override
    public boolean equals(Object other) {
      if (!(other instanceof Key)) {
        return false;
      }
      Key k = (Key) other;
      return value.equals(k.value)
          && Objects.equals(timestamp, k.timestamp)
          && Objects.equals(window, k.window)
          && Objects.equals(paneTiming, k.paneTiming);
    }

    @Override
    public int hashCode() {
      return Objects.hash(value, timestamp, window, paneTiming);
    }

    @Override
    public String toString() {
      StringBuilder out = new StringBuilder("value=").append(rendering);
      if (timestamp != null) {
        out.append(" timestamp=").append(timestamp);
      }
      if (window != null) {
        out.append(" window=").append(window);
      }
      if (paneTiming != null) {
        out.append(" pane=").append(paneTiming);
      }
      return out.toString();
    }
  }
}
