package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link Setting#notNegativeUpToMax}: a wait whose builder documents a huge value as "as long as
 * can be" takes one over {@link Setting#MAX_TIME_LIMIT} as that bound, where {@link
 * Setting#notNegative} refuses it; a negative one is still refused.
 */
class SettingUpToMaxTest {
  @Test
  void aTimePastTheBound_isTakenAsTheBound() {
    assertThat(
            Setting.notNegativeUpToMax(
                "grace", Duration.ofSeconds(Long.MAX_VALUE), "is not negative: "))
        .isEqualTo(Setting.MAX_TIME_LIMIT);
    assertThat(Setting.notNegativeUpToMax("grace", Duration.ZERO, "is not negative: ")).isZero();
    assertThat(Setting.notNegativeUpToMax("grace", Duration.ofDays(3), "is not negative: "))
        .isEqualTo(Duration.ofDays(3));
  }

  @Test
  void aNegativeTime_isStillRefused() {
    assertThatThrownBy(
            () -> Setting.notNegativeUpToMax("grace", Duration.ofNanos(-1), "is not negative: "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("grace is not negative: PT-0.000000001S");
  }
}
