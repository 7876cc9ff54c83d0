package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Provenance;

/**
 * A window never closed is taken out of the books an hour after it opened ({@link
 * DomainLedger#STALE_WINDOW_NANOS}); a step back of the clock must not put its opening in the
 * future, or it would overlap every later serve on its counter for the hour and the step besides
 * (for good, after a step as long as the clock's origin). Fake time, no sleeps.
 */
class StaleWindowClockStepTest {
  private static final long MINUTE_MS = 60_000;
  private static final long HOUR_NANOS = 3_600_000_000_000L;

  private final FakeClock base = new FakeClock();
  private final SteppingClock clock = new SteppingClock(base);
  private final TimedCounter counter = TimedCounter.rapl(ProbedMeter.CPU0, base);

  @Test
  void aWindowLostBeforeAStepBack_isAgedFromTheStep_notFromAheadOfIt() {
    try (CounterMeter meter = ProbedMeter.overPackageZero(counter, clock, r -> {})) {
      base.advanceMillis(5);
      MeterWindow lost = meter.open(Set.of(ProbedMeter.CPU0));
      base.advanceMillis(5 * MINUTE_MS);
      clock.stepBack(10 * HOUR_NANOS);
      base.advanceMillis(5);
      meter.pollCounters(); // the first read after the step
      StaleWindowTest.overlapsUntilAnHourOld(
          meter, base, counter.hardware(), "the lost window, counted from the step,");
      lost.abandon();
      assertThat(OpenWindows.on(counter.hardware())).isZero();
    }
  }

  /** A jump forward short of the hour, then a step back: the window is neither lost nor kept. */
  @Test
  void aYoungWindowAcrossAJumpForwardAndAStepBack_isAgedFromTheStep() {
    try (CounterMeter meter = ProbedMeter.overPackageZero(counter, clock, r -> {})) {
      base.advanceMillis(5);
      MeterWindow young = meter.open(Set.of(ProbedMeter.CPU0));
      clock.stepBack(-59 * 60_000_000_000L);
      meter.pollCounters();
      assertThat(OpenWindows.on(counter.hardware())).as("59 min on, by the jump").isEqualTo(1);
      clock.stepBack(2 * HOUR_NANOS);
      base.advanceMillis(5);
      meter.pollCounters();
      assertThat(OpenWindows.on(counter.hardware())).as("after the step back").isEqualTo(1);
      // The jump made the counter look stalled (demoted, figures the estimator's), so the count
      // alone says how old the window is taken to be.
      base.advanceMillis(59 * MINUTE_MS);
      meter.pollCounters();
      assertThat(OpenWindows.on(counter.hardware())).as("59 min after the step").isEqualTo(1);
      base.advanceMillis(MINUTE_MS);
      meter.pollCounters();
      assertThat(OpenWindows.on(counter.hardware())).as("an hour after the step").isZero();
      assertThat(young.close(1).provenance()).isEqualTo(Provenance.Estimator);
    }
  }
}
