package dev.eventide.pipelines.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;

import dev.eventide.testing.runners.TestRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The benchmark's variants compute the same thing, and its chart is written. */
class TransformsBenchmarkTest {
  @TempDir Path temp;

  @Test
  void everyVariantOfAnOperatorEmitsTheSameNumberOfOutputs() throws Exception {
    List<TransformsBenchmark.Result> results = new ArrayList<>();
    for (String operator : List.of("Filter", "FlatMap x8", "Join")) {
      for (String variant : TransformsBenchmark.variants()) {
        results.add(
            TransformsBenchmark.run(
                "direct",
                name -> TestRunner.DIRECT.options(1),
                operator,
                variant,
                TransformsBenchmark.variant(operator, variant),
                200));
      }
    }
    for (TransformsBenchmark.Result r : results) {
      long reference =
          results.stream()
              .filter(x -> x.operator().equals(r.operator()) && x.variant().equals("D"))
              .findFirst()
              .orElseThrow()
              .outputs();
      assertThat(r.operator() + " " + r.variant(), r.outputs(), equalTo(reference));
      assertThat(r.outputs(), greaterThan(0L));
    }
    Path chart = temp.resolve("chart.png");
    Charts.throughput(chart, "direct", results);
    assertThat(Files.size(chart), greaterThan(1000L));
  }
}
