package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
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
    assertReset(() -> over.advance(1_001, "nvml", 10 * MS, 10 * MS));
  }

  /**
   * An auditor's probe: NVML's 64-bit millijoules one unit back, read soon or hours later, is a
   * reset (2^64 - 1 mJ forward, 18 EJ, is no wrap), and so is the total step back from the top of
   * the range to 2^63; counting goes on from the new value either way.
   */
  @Test
  void aCounterOneUnitBack_isAReset_notAWrapOf2To64() throws Exception {
    CounterAccumulator a = new CounterAccumulator(CounterAccumulator.RANGE_2_64, 1_000, 2_000, 0);
    a.advance(10_000, "nvml", 0, 0);
    assertReset(() -> a.advance(9_999, "nvml", 3_600_000 * MS, 3_600_000 * MS));
    assertThat(a.advance(10_000, "nvml", 3_600_010 * MS, 3_600_010 * MS)).isEqualTo(1_000);

    CounterAccumulator top = new CounterAccumulator(CounterAccumulator.RANGE_2_64, 1_000);
    top.advance(-1L, "nvml"); // 2^64 - 1 mJ
    assertReset(() -> top.advance(Long.MIN_VALUE, "nvml")); // 2^63: 2^63 - 1 back
    assertThat(top.advance(Long.MIN_VALUE + 5, "nvml")).isEqualTo(5_000);
  }

  private static void assertReset(ThrowingCallable read) {
    assertThatThrownBy(read)
        .isInstanceOfSatisfying(
            CounterException.class,
            e -> assertThat(e.issue()).isEqualTo(CounterIssue.COUNTER_RESET));
  }
}
