package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

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
}
