package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A time limit a builder takes is at most 100 years ({@code Setting.MAX_TIME_LIMIT}): one past what
 * {@link System#nanoTime()} can hold as a deadline was taken at start and then failed every request
 * that applied it ({@code "timeout_s": 9223372036854775807} on an upstream: each serve threw an
 * ArithmeticException from {@link Duration#toNanos()}).
 */
class SettingTimeLimitTest {
  @Test
  void aTimeLimitPastTheBound_isRefusedNamingIt() {
    Duration forever = Duration.ofSeconds(Long.MAX_VALUE);
    assertThatThrownBy(() -> Setting.positive("timeout", forever, "must be positive: "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("timeout must be at most 36525 days (100 years), not " + forever);
    assertThatThrownBy(() -> Setting.notNegative("grace", forever, "must not be negative: "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("grace must be at most 36525 days");
  }

  @Test
  void theBoundItself_isKept_andIsADeadlineNanoTimeHolds() {
    Duration bound = Duration.ofDays(36_525);
    assertThat(Setting.positive("t", bound, "must be positive: ")).isEqualTo(bound);
    assertThat(bound.toNanos()).isLessThan(Long.MAX_VALUE / 2);
  }
}
