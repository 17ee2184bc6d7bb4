package dev.eventide.pipelines.bench;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.not;

import dev.eventide.pipelines.cli.EventideCli;
import dev.eventide.trends.engine.Engines;
import dev.eventide.trends.query.Workload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The trend benchmark's engines agree on its streams, and its command writes the charts. */
class TrendsBenchmarkTest {
  @TempDir Path temp;

  @Test
  void allEnginesProduceTheSameResultsOnEveryStream() {
    for (TrendStreams.Kind stream : TrendStreams.Kind.values()) {
      List<TrendsBenchmark.Result> results =
          TrendsBenchmark.compare(stream, 400, 6, List.of(Engines.values()), 2, 0, 60, 2, 0);
      assertThat(results.size(), equalTo(Engines.values().length));
      for (TrendsBenchmark.Result r : results) {
        assertThat(r.finished(), equalTo(true));
        assertThat(
            r.events(), equalTo((long) TrendStreams.events(stream, 42, 400, 2, 60_000).size()));
        assertThat(
            r.engine() + " on " + stream,
            r.resultDigest(),
            equalTo(results.get(results.size() - 1).resultDigest()));
      }
      assertThat("some results", results.get(0).resultDigest(), not(equalTo(0L)));
      for (TrendsBenchmark.Result r : results) {
        assertThat(r.engine() + " paired", Double.isNaN(r.speedupOverStatic()), equalTo(false));
      }
    }
  }

  @Test
  void speedUpsOverStaticArePairedPerRound() {
    // Rounds of (static, other) CPU times: a slow third round slows both alike.
    List<double[]> rounds =
        List.of(
            new double[] {1.0, 0.5},
            new double[] {1.2, 0.4},
            new double[] {9.0, 4.5},
            new double[] {Double.NaN, 0.1}); // static did not finish: not paired
    assertThat(TrendsBenchmark.pairedSpeedup(rounds, 0, 1), equalTo(2.0));
    assertThat(TrendsBenchmark.pairedSpeedup(rounds, 0, 0), equalTo(1.0));
    assertThat(
        TrendsBenchmark.pairedSpeedup(List.of(new double[] {Double.NaN, 1}), 0, 1),
        equalTo(Double.NaN));
    // An even count: the mean of the middle two.
    assertThat(
        TrendsBenchmark.pairedSpeedup(List.of(new double[] {1, 1}, new double[] {3, 1}), 0, 1),
        equalTo(2.0));
  }

  @Test
  void workloadsParseAndShareTheBurstyType() {
    for (TrendStreams.Kind stream : TrendStreams.Kind.values()) {
      Workload w = Workload.parse(TrendStreams.workload(stream, 1, 10, 60_000));
      assertThat(w.queries().size(), equalTo(10));
      assertThat(w.queries().get(0).pattern().kleeneTypes().size(), equalTo(1));
    }
  }

  @Test
  void theCommandPrintsRatiosAndWritesCharts() throws Exception {
    int code =
        EventideCli.execute(
            "bench",
            "trends",
            "--streams=stocks",
            "--events-per-window=200",
            "--queries=3",
            "--fixed-events=200",
            "--warmup=0",
            "--chart-dir=" + temp);
    assertThat(code, equalTo(0));
    assertThat(Files.size(temp.resolve("trends-stocks-events.png")), greaterThan(1000L));
    assertThat(Files.size(temp.resolve("trends-stocks-queries.png")), greaterThan(1000L));
  }

  @Test
  void theBurstSweepAgreesAcrossEnginesAndSharesOnlyWhereItPays() {
    // Bursts of one event for two queries: dynamic evaluates them alone; of 16 for eight: shares.
    BurstSharingSweep.Result alone = BurstSharingSweep.measure(1, 2, 10, 2000, 1);
    assertThat(alone.bursts(), equalTo(1000L));
    assertThat(alone.sharedBursts(), equalTo(0L));
    BurstSharingSweep.Result shared = BurstSharingSweep.measure(16, 8, 10, 2000, 1);
    assertThat(shared.bursts(), greaterThan(0L));
    assertThat(shared.sharedBursts(), equalTo(shared.bursts()));
  }

  @Test
  void badSettingsAreUsageErrors() {
    assertThat(EventideCli.execute("bench", "trends", "--streams=bonds"), equalTo(2));
    assertThat(EventideCli.execute("bench", "trends", "--windows=0"), equalTo(2));
    assertThat(EventideCli.execute("bench", "trends", "--queries=0"), equalTo(2));
    assertThat(EventideCli.execute("bench", "trends", "--rounds=0"), equalTo(2));
    assertThat(EventideCli.execute("bench", "trend-bursts", "--burst-lengths=0"), equalTo(2));
  }
}
