package dev.eventide.pipelines.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.eventide.generators.LatenessDistribution;
import dev.eventide.testing.runners.TestRunner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.beam.sdk.PipelineResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestReporter;
import org.junit.jupiter.api.Timeout;

/**
 * The soak in short, on embedded Flink: 180,000 events at 1,000 a second, 30 hours of event time,
 * 1,000 keys at a time and a new generation every half hour, a fifth of the values late by up to
 * half an hour. After the warm-up, what every step holds over the last third of the run is within
 * ±10% of what it held over the middle third (read through the REST API while the job runs); once
 * the input ends, every gauge is 0.
 */
class SoakShapeTest {
  @Test
  @Timeout(value = 20, unit = java.util.concurrent.TimeUnit.MINUTES)
  void stateStaysFlatAndEndsWithTheInput(TestReporter report) throws Exception {
    SoakConfig config =
        new SoakConfig(
            180_000,
            1_000,
            org.joda.time.Duration.standardMinutes(30),
            org.joda.time.Duration.standardMinutes(1),
            100,
            0.2,
            LatenessDistribution.uniform(0, 30),
            org.joda.time.Duration.standardHours(1),
            "memory:" + UUID.randomUUID(),
            1_000,
            46);
    List<SoakSample> samples = new ArrayList<>();
    SoakRun.Outcome outcome =
        new SoakRun(config, TestRunner.FLINK.options(2))
            .run(Duration.ofSeconds(2), Duration.ofMinutes(15), samples::add);

    assertEquals(PipelineResult.State.DONE, outcome.state(), "the job ends with its input");
    SoakSample last = samples.get(samples.size() - 1);
    assertEquals(config.events(), last.events());
    Map<String, Long> zero = new LinkedHashMap<>();
    SoakGauges.GAUGES.forEach(g -> zero.put(g.label(), 0L));
    SoakGauges.BLOCKS.forEach(g -> zero.put(g.label(), 0L));
    assertEquals(zero, last.gauges(), "state held once the input ended");

    List<SoakSample> running = samples.subList(0, samples.size() - 1);
    assertTrue(running.size() >= 20, "readings while the job ran: " + running.size());
    SoakVerdict verdict = SoakVerdict.judge(running, 10, 0.10, SoakGauges.REPORTED_ONLY);
    report.publishEntry("verdict", verdict.line());
    assertTrue(verdict.flat(), verdict.line());
  }
}
