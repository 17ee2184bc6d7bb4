package dev.eventide.generators;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.closeTo;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.List;
import org.apache.commons.math3.random.Well19937c;
import org.joda.time.Duration;
import org.joda.time.Instant;
import org.junit.jupiter.api.Test;

class LateEventGeneratorTest {

  private static LateEventGenerator.Builder small() {
    return LateEventGenerator.builder()
        .setWindow(Duration.standardSeconds(10))
        .setEventsPerWindow(100)
        .setEvents(5_000);
  }

  @Test
  void sameConfigurationGivesTheSameStream() {
    assertThat(small().build().generate(), equalTo(small().build().generate()));
    assertThat(small().setSeed(7).build().generate(), not(equalTo(small().build().generate())));
  }

  @Test
  void eventTimeIsArrivalMinusWholeOrFractionalWindows() {
    LateEventGenerator g = small().build();
    List<LateEvent> events = g.generate();
    for (int i = 0; i < events.size(); i++) {
      LateEvent e = events.get(i);
      assertThat(e.arrivalTime(), equalTo(g.arrivalTime(i)));
      assertThat(e.eventTime().isAfter(e.arrivalTime()), is(false));
      assertThat(e.watermark(), equalTo(g.watermarkAt(e.arrivalTime())));
      assertThat(e.value(), lessThan(1_000L));
    }
  }

  @Test
  void windowIndexFollowsTheLogNormalOfThePaper() {
    // log-normal(0, 1): median e^0 = 1 window, P(k <= e) = Phi(1) = 0.841.
    LateEventGenerator g = small().setEvents(40_000).build();
    double[] k =
        g.generate().stream()
            .mapToDouble(
                e ->
                    (e.arrivalTime().getMillis() - e.eventTime().getMillis())
                        / (double) g.window().getMillis())
            .sorted()
            .toArray();
    assertThat(k[k.length / 2], closeTo(1.0, 0.03));
    long belowE = Arrays.stream(k).filter(x -> x <= Math.E).count();
    assertThat(belowE / (double) k.length, closeTo(0.841, 0.01));
  }

  @Test
  void watermarkIsPeriodicAndEventsBehindItAreLate() {
    LateEventGenerator g =
        small().setWatermarkPeriod(Duration.standardSeconds(5)).setLateFraction(0.3).build();
    Instant previous = g.start();
    long late = 0;
    for (LateEvent e : g) {
      assertThat(e.watermark().getMillis() % 5_000, equalTo(g.start().getMillis() % 5_000));
      assertThat(e.watermark().isBefore(previous), is(false));
      assertThat(e.arrivalTime().isBefore(e.watermark()), is(false));
      assertThat(e.isLate(), equalTo(e.eventTime().isBefore(e.watermark())));
      previous = e.watermark();
      late += e.isLate() ? 1 : 0;
    }
    // Only delayed events can be late, and most delayed events are (median delay: 1 window).
    assertThat(late / 5_000.0, closeTo(0.25, 0.05));
  }

  @Test
  void withoutLateFractionNothingIsLate() {
    assertThat(
        small().setLateFraction(0).build().generate().stream().anyMatch(LateEvent::isLate),
        is(false));
  }

  @Test
  void distributionsAreNonNegativeAndParseTheirOwnRendering() {
    for (LatenessDistribution d :
        List.of(
            LatenessDistribution.logNormal(0, 1),
            LatenessDistribution.uniform(0, 4),
            LatenessDistribution.normal(0.1, 2),
            LatenessDistribution.bursts(0.2, 0.5, 2, 5))) {
      LatenessDistribution.Sampler s = d.sampler(new Well19937c(1));
      for (int i = 0; i < 10_000; i++) {
        assertThat(s.sample(), greaterThanOrEqualTo(0.0));
      }
      assertThat(LatenessDistribution.parse(d.toString()), equalTo(d));
    }
    assertThat(
        LatenessDistribution.parse("lognormal"), equalTo(LatenessDistribution.logNormal(0, 1)));
  }

  @Test
  void badDistributionSpecsSayWhatIsWrong() {
    assertThat(
        assertThrows(IllegalArgumentException.class, () -> LatenessDistribution.parse("pareto(1)"))
            .getMessage(),
        containsString("unknown distribution 'pareto'"));
    assertThat(
        assertThrows(IllegalArgumentException.class, () -> LatenessDistribution.parse("normal(1)"))
            .getMessage(),
        containsString("normal takes 2 numbers"));
    assertThat(
        assertThrows(
                IllegalArgumentException.class, () -> LatenessDistribution.parse("uniform(0,x)"))
            .getMessage(),
        containsString("'x' is not a number"));
  }

  @Test
  void rejectsInvalidConfiguration() {
    assertThat(
        assertThrows(IllegalArgumentException.class, () -> small().setLateFraction(1.5).build())
            .getMessage(),
        equalTo("lateFraction must be in [0, 1], but was 1.5"));
    assertThrows(IllegalArgumentException.class, () -> small().setKeys(0).build());
    assertThrows(IllegalArgumentException.class, () -> small().setEventsPerWindow(20_000).build());
  }
}
