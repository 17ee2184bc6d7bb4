package dev.eventide.testing.differential;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SeedsTest {
  private final String before = System.getProperty(Seeds.SCALE_PROPERTY);

  @AfterEach
  void restore() {
    if (before == null) {
      System.clearProperty(Seeds.SCALE_PROPERTY);
    } else {
      System.setProperty(Seeds.SCALE_PROPERTY, before);
    }
  }

  @Test
  void unsetRunsTheUsualCount() {
    System.clearProperty(Seeds.SCALE_PROPERTY);
    assertThat(Seeds.count(3000), equalTo(3000));
    assertThat(Seeds.range(10, 4).boxed().toList(), equalTo(java.util.List.of(10L, 11L, 12L, 13L)));
  }

  @Test
  void theScaleMultipliesAndNeverGoesBelowOne() {
    System.setProperty(Seeds.SCALE_PROPERTY, "2.5");
    assertThat(Seeds.count(4), equalTo(10));
    System.setProperty(Seeds.SCALE_PROPERTY, "0.01");
    assertThat(Seeds.count(3000), equalTo(30));
    assertThat(Seeds.count(6), equalTo(1));
  }

  @Test
  void aScaleThatIsNotAPositiveNumberIsAnErrorNamingTheProperty() {
    for (String bad : new String[] {"0", "-1", "ten", "NaN"}) {
      System.setProperty(Seeds.SCALE_PROPERTY, bad);
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> Seeds.count(5), bad);
      assertThat(
          e.getMessage(),
          equalTo("eventide.test.seedScale must be a number > 0, but was '" + bad + "'"));
    }
  }
}
