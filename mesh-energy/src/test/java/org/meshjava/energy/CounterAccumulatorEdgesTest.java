package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A wrapping counter's total at the edges of its range, its unit and its power bound. */
class CounterAccumulatorEdgesTest {
  private static final long MS = 1_000_000L;

  @Test
  void aUnitOfZero_isRefused() {
    assertThatThrownBy(() -> new CounterAccumulator(100, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ujPerUnit must be positive");
  }

  /** RAPL's counter reaches max_energy_range_uj itself before it wraps. */
  @Test
  void aReadingAtTheTopOfTheRange_isAReading() throws Exception {
    CounterAccumulator a = new CounterAccumulator(1_000, 1);
    a.advance(990, "c");

    assertThat(a.advance(1_000, "c")).isEqualTo(10);
    assertThat(a.advance(5, "c")).isEqualTo(15);
  }

  /**
   * NVML counts millijoules: the bound in µJ is compared with the increment in the counter's own
   * units. 100 W over 10 ms is 1,000,000 µJ, so 1,000 mJ.
   */
  @Test
  void aPowerBound_isAppliedInTheCountersOwnUnits() throws Exception {
    CounterAccumulator ok = new CounterAccumulator(CounterAccumulator.RANGE_2_64, 1_000, 100, 0);
    ok.advance(0, "nvml", 0, 0);
    assertThat(ok.advance(1_000, "nvml", 10 * MS, 10 * MS)).isEqualTo(1_000_000);

    CounterAccumulator over = new CounterAccumulator(CounterAccumulator.RANGE_2_64, 1_000, 100, 0);
    over.advance(0, "nvml", 0, 0);
    assertThatThrownBy(() -> over.advance(1_001, "nvml", 10 * MS, 10 * MS))
        .isInstanceOfSatisfying(
            CounterException.class,
            e -> assertThat(e.issue()).isEqualTo(CounterIssue.COUNTER_RESET));
  }
}
