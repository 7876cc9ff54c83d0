package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The builders' setting checks: the bound each keeps, and a message in the builder's words. */
class SettingTest {

  @Test
  void atLeast_keepsTheMinimum_andRefusesBelowIt_inTheCallersWords() {
    assertThat(Setting.atLeast("checkpointEvery", 1, 1, "is at least 1, got ")).isEqualTo(1);
    assertThat(Setting.atLeast("maxBodyBytes", Long.MAX_VALUE, 1L, "must be positive: "))
        .isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(() -> Setting.atLeast("checkpointEvery", 0, 1, "is at least 1, got "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("checkpointEvery is at least 1, got 0");
    assertThatThrownBy(() -> Setting.atLeast("snapshotEvery", -1L, 0L, "is at least 0, got "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("snapshotEvery is at least 0, got -1");
  }

  @Test
  void within_keepsBothEnds_andRefusesEitherSide() {
    assertThat(Setting.within("port", 0, 0, 65_535, "must be 0-65535: ")).isZero();
    assertThat(Setting.within("port", 65_535, 0, 65_535, "must be 0-65535: ")).isEqualTo(65_535);
    assertThatThrownBy(() -> Setting.within("port", 65_536, 0, 65_535, "must be 0-65535: "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("port must be 0-65535: 65536");
    assertThatThrownBy(() -> Setting.within("maxOutputTokens", 0L, 1L, 9L, "must be 1..9: "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxOutputTokens must be 1..9: 0");
  }

  @Test
  void positive_refusesZeroAndNegative_notNegative_refusesOnlyNegative() {
    assertThat(Setting.positive("idleTimeout", Duration.ofNanos(1), "must be positive: "))
        .isEqualTo(Duration.ofNanos(1));
    assertThatThrownBy(() -> Setting.positive("idleTimeout", Duration.ZERO, "must be positive: "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("idleTimeout must be positive: PT0S");
    assertThat(Setting.notNegative("snapshotInterval", Duration.ZERO, "is not negative: "))
        .isEqualTo(Duration.ZERO);
    assertThatThrownBy(
            () ->
                Setting.notNegative(
                    "snapshotInterval", Duration.ofSeconds(-1), "is not negative: "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("snapshotInterval is not negative: PT-1S");
  }

  @Test
  void notBlank_refusesWhiteSpace_andNamesTheSettingWhenNull() {
    assertThat(Setting.notBlank("model", " m ")).isEqualTo(" m ");
    assertThatThrownBy(() -> Setting.notBlank("model", " \t"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("model must not be blank");
    assertThatThrownBy(() -> Setting.notBlank("name", null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("name");
  }
}
