package dev.eventide.pipelines.cli;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.joda.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** Flags read durations as query files do: the short units and the English words. */
class DurationConverterTest {
  @ParameterizedTest
  @CsvSource({
    "250ms, 250",
    "250 milliseconds, 250",
    "10s, 10000",
    "1 second, 1000",
    "5m, 300000",
    "5 min, 300000",
    "30 minutes, 1800000",
    "2h, 7200000",
    "2 Hours, 7200000",
    "1d, 86400000",
    "3 days, 259200000"
  })
  void readsEveryUnitOfTheQueryLanguage(String text, long millis) {
    assertThat(new DurationConverter().convert(text), equalTo(Duration.millis(millis)));
  }

  @ParameterizedTest
  @CsvSource({"3 weeks", "1.5s", "s", "-1s", "10"})
  void rejectsWhatIsNotADurationNamingTheUnits(String text) {
    CommandLine.TypeConversionException e =
        assertThrows(
            CommandLine.TypeConversionException.class, () -> new DurationConverter().convert(text));
    assertThat(e.getMessage(), containsString("'" + text + "' is not a duration"));
    assertThat(e.getMessage(), containsString("m (min, minute[s])"));
  }
}
