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

  private static final long US = 1_000L;

  /** A RAPL-like accumulator: range 1 000 000 µJ, at most 1 kW, no refresh slack. */
  private static CounterAccumulator bounded() {
    return new CounterAccumulator(1_000_000, 1, 1_000, 0);
  }

  @Test
  void advance_whenWrapFitsThePowerBound_isAWrap() throws Exception {
    CounterAccumulator a = bounded();
    a.advance(999_900, "t", 0, 0);
    // 150 µJ in 1 µs is 150 W: a wrap.
    assertThat(a.advance(50, "t", US, US)).isEqualTo(150);
  }

  @Test
  void advance_whenSmallerValueWouldMeanMoreThanTheBound_isAResetAndRebaselines() throws Exception {
    CounterAccumulator a = bounded();
    a.advance(500_000, "t", 0, 0);
    // As a wrap that is 500 100 µJ in 10 µs, 50 MW: the counter restarted instead.
    assertThatThrownBy(() -> a.advance(100, "t", 10 * US, 10 * US))
        .isInstanceOfSatisfying(
            CounterException.class,
            e -> {
              assertThat(e.issue()).isEqualTo(CounterIssue.COUNTER_RESET);
              assertThat(e.getMessage()).contains("as a wrap, 500100 µJ").contains("1000 W");
            });
    assertThat(a.advance(400, "t", 20 * US, 20 * US)).as("counts on from 100").isEqualTo(300);
  }

  @Test
  void advance_whenForwardJumpExceedsTheBound_isAReset() throws Exception {
    CounterAccumulator a = bounded();
    a.advance(0, "t", 0, 0);
    // 1 kW for 100 µs is 100 000 µJ; 100 001 is more.
    assertThat(a.advance(100_000, "t", 100 * US, 100 * US)).isEqualTo(100_000);
    assertThatThrownBy(() -> a.advance(200_001, "t", 200 * US, 200 * US))
        .isInstanceOfSatisfying(
            CounterException.class,
            e -> assertThat(e.issue()).isEqualTo(CounterIssue.COUNTER_RESET));
  }

  @Test
  void advance_measuresTheGapFromThePreviousReadsStartToThisReadsEnd() throws Exception {
    CounterAccumulator a = new CounterAccumulator(1_000_000, 1, 1_000, 2 * US);
    a.advance(0, "t", 0, 5 * US); // a slow read: started at 0
    // From the start of the previous read to the end of this one is 5 µs, plus 2 µs of slack:
    // 7 000 µJ at 1 kW, and no more.
    assertThat(a.advance(7_000, "t", 4 * US, 5 * US)).isEqualTo(7_000);
    assertThatThrownBy(() -> a.advance(14_001, "t", 9 * US, 9 * US))
        .isInstanceOf(CounterException.class);
  }

  @Test
  void advance_whenMillijouleDeltaOverflowsMicrojoules_isAResetNotAWrongFigure() throws Exception {
    CounterAccumulator a = new CounterAccumulator(CounterAccumulator.RANGE_2_64, 1_000);
    a.advance(0, "t");
    assertThatThrownBy(() -> a.advance(Long.MAX_VALUE / 1_000 + 1, "t"))
        .isInstanceOfSatisfying(
            CounterException.class,
            e -> assertThat(e.issue()).isEqualTo(CounterIssue.COUNTER_RESET));
    assertThat(a.advance(Long.MAX_VALUE / 1_000 + 3, "t")).isEqualTo(2_000);
  }

  @Test
  void advance_withoutTimes_isRefusedOnABoundedAccumulator() {
    assertThatThrownBy(() -> bounded().advance(1, "t")).isInstanceOf(IllegalStateException.class);
  }
}
