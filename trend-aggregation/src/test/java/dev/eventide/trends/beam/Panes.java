package dev.eventide.trends.beam;

import dev.eventide.trends.Event;
import dev.eventide.trends.TrendResult;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.beam.sdk.testing.PAssert;
import org.apache.beam.sdk.transforms.DoFn;
import org.apache.beam.sdk.transforms.Flatten;
import org.apache.beam.sdk.transforms.MapElements;
import org.apache.beam.sdk.transforms.ParDo;
import org.apache.beam.sdk.transforms.windowing.BoundedWindow;
import org.apache.beam.sdk.transforms.windowing.GlobalWindows;
import org.apache.beam.sdk.transforms.windowing.IntervalWindow;
import org.apache.beam.sdk.transforms.windowing.PaneInfo;
import org.apache.beam.sdk.transforms.windowing.Window;
import org.apache.beam.sdk.values.PCollection;
import org.apache.beam.sdk.values.PCollectionList;
import org.apache.beam.sdk.values.TypeDescriptors;

/**
 * What a test sees of {@link TrendAggregate}'s output: each result with its pane, as a line, and
 * the checks on them (the window an element is in, its timestamp, the pane indexes).
 */
final class Panes {
  private Panes() {}

  /** One emitted result and its pane. */
  record Pane(String key, String value, PaneInfo.Timing timing, long index)
      implements Serializable {}

  /** The identity of a result: query, group, window. */
  static String key(TrendResult r) {
    return r.query() + " " + r.group() + " [" + r.windowStart() + ", " + r.windowEnd() + ")";
  }

  /** An event as text with its attributes in name order (coders do not keep their order). */
  static String canonical(Event e) {
    return e.type() + "@" + e.time() + new TreeMap<>(e.attributes());
  }

  /**
   * The results as lines (as {@link #of}) in the global window, and the dead letters as lines
   * {@code D \t event \t reason}, in one collection; {@code suffix} names the steps.
   */
  static PCollection<String> withDeadLetters(TrendAggregate.Result out, String suffix) {
    PCollection<String> dead =
        out.deadLetters()
            .apply(
                "Dead " + suffix,
                MapElements.into(TypeDescriptors.strings())
                    .via(d -> "D\t" + canonical(d.event()) + "\t" + d.reason()));
    return PCollectionList.of(
            of(out.results(), "Panes " + suffix)
                .apply("Global " + suffix, Window.into(new GlobalWindows())))
        .and(dead)
        .apply("Lines " + suffix, Flatten.pCollections());
  }

  /** The results as lines {@code key \t value \t timing \t index}, checking windows and times. */
  static PCollection<String> of(PCollection<TrendResult> results, String name) {
    return results.apply(name, ParDo.of(new ToLine()));
  }

  private static final class ToLine extends DoFn<TrendResult, String> {
    @ProcessElement
    public void process(
        @Element TrendResult r,
        @Timestamp org.joda.time.Instant timestamp,
        BoundedWindow window,
        PaneInfo pane,
        OutputReceiver<String> out) {
      IntervalWindow expected =
          new IntervalWindow(
              new org.joda.time.Instant(r.windowStart()), new org.joda.time.Instant(r.windowEnd()));
      if (!window.equals(expected)) {
        throw new AssertionError(key(r) + " is in window " + window + ", not " + expected);
      }
      if (timestamp.getMillis() != r.windowEnd() - 1) {
        throw new AssertionError(key(r) + " has timestamp " + timestamp);
      }
      out.output(key(r) + "\t" + r.value() + "\t" + pane.getTiming() + "\t" + pane.getIndex());
    }
  }

  static List<Pane> parse(Iterable<String> lines) {
    List<Pane> panes = new ArrayList<>();
    for (String line : lines) {
      String[] f = line.split("\t", -1);
      panes.add(
          new Pane(
              f[0],
              f[1].equals("null") ? null : f[1],
              PaneInfo.Timing.valueOf(f[2]),
              Long.parseLong(f[3])));
    }
    return panes;
  }

  /** The value of each result's last pane, checking that pane indexes run 0, 1, 2, ... */
  static Map<String, String> last(List<Pane> panes) {
    Map<String, List<Pane>> byKey = new HashMap<>();
    panes.forEach(p -> byKey.computeIfAbsent(p.key(), k -> new ArrayList<>()).add(p));
    Map<String, String> last = new HashMap<>();
    byKey.forEach(
        (key, ps) -> {
          ps.sort(java.util.Comparator.comparingLong(Pane::index));
          for (int i = 0; i < ps.size(); i++) {
            if (ps.get(i).index() != i) {
              throw new AssertionError(key + " has panes " + ps);
            }
          }
          last.put(key, ps.get(ps.size() - 1).value());
        });
    return last;
  }

  static Map<String, String> expected(List<TrendResult> results) {
    Map<String, String> expected = new HashMap<>();
    results.forEach(r -> expected.put(key(r), r.value()));
    return expected;
  }

  /**
   * Asserts, when the pipeline runs, that each result's last pane holds the value {@code expected}
   * gives its key (none: no result, or COUNT 0); {@code what} names the case in the failure.
   */
  static void assertFinalValues(
      PCollection<TrendResult> results, String name, Map<String, String> expected, String what) {
    PAssert.that(of(results, name))
        .satisfies(
            lines -> {
              org.junit.jupiter.api.Assertions.assertEquals(
                  Map.of(), wrongFinalValues(expected, last(parse(lines))), what);
              return null;
            });
  }

  /**
   * The results whose last pane is not the expected value, as "expected X, was Y" by key. A result
   * expected to have no trends may be absent or end with a pane of none ("0": a window that lost
   * its trends to a late NOT).
   */
  static Map<String, String> wrongFinalValues(
      Map<String, String> expected, Map<String, String> last) {
    Map<String, String> wrong = new java.util.TreeMap<>();
    java.util.Set<String> keys = new java.util.HashSet<>(last.keySet());
    keys.addAll(expected.keySet());
    for (String k : keys) {
      String want = expected.get(k);
      String got = last.get(k);
      boolean right = want != null ? want.equals(got) : got == null || got.equals("0");
      if (!right) {
        wrong.put(k, "expected " + want + ", was " + got);
      }
    }
    return wrong;
  }
}
