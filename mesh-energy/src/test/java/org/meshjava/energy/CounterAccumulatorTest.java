package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Wraparound and units of raw counters. */
class CounterAccumulatorTest {

  @Test
  void advance_countsFromTheFirstReading() throws Exception {
    CounterAccumulator a = new CounterAccumulator(1_000_000, 1);
    assertThat(a.advance(500, "t")).isZero();
    assertThat(a.advance(800, "t")).isEqualTo(300);
    assertThat(a.advance(800, "t")).isEqualTo(300);
  }

  @Test
  void advance_whenRaplCounterWraps_addsTheDistanceThroughTheRange() throws Exception {
    CounterAccumulator a = new CounterAccumulator(1_000_000, 1);
    a.advance(999_900, "t");
    assertThat(a.advance(50, "t")).isEqualTo(150);
  }

  @Test
  void advance_whenReadingOutsideRange_isACounterReset() throws Exception {
    CounterAccumulator a = new CounterAccumulator(1_000, 1);
    a.advance(10, "t");
    assertThatThrownBy(() -> a.advance(1_001, "t"))
        .isInstanceOfSatisfying(
            CounterException.class,
            e -> assertThat(e.issue()).isEqualTo(CounterIssue.COUNTER_RESET));
  }

  @Test
  void advance_whenUnsigned64BitCounterWraps_countsTheUnsignedDistance() throws Exception {
    CounterAccumulator a = new CounterAccumulator(CounterAccumulator.RANGE_2_64, 1_000);
    a.advance(-3L, "t"); // 2^64 - 3 mJ
    assertThat(a.advance(2, "t")).isEqualTo(5_000);
  }

  @Test
  void advance_whenUnsignedCounterGoesBackwards_isAResetAndRebaselines() throws Exception {
    CounterAccumulator a = new CounterAccumulator(CounterAccumulator.RANGE_2_64, 1_000);
    a.advance(10_000, "t");
    a.advance(10_010, "t");
    assertThatThrownBy(() -> a.advance(5, "t"))
        .isInstanceOfSatisfying(
            CounterException.class,
            e -> assertThat(e.issue()).isEqualTo(CounterIssue.COUNTER_RESET));
    assertThat(a.advance(7, "t")).as("counts on from the new baseline").isEqualTo(12_000);
  }
}
