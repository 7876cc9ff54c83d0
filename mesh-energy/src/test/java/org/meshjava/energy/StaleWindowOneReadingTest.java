package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Provenance;

/**
 * A read ages the windows on its counter once, at its own reading of the clock: a window of the
 * reading meter that turns an hour old between two readings of the clock in one read must not be
 * taken out as another meter's window, under that WARN. Fake time, no sleeps.
 */
class StaleWindowOneReadingTest {
  private static final long MINUTE_MS = 60_000;
  private static final long SECOND_NANOS = 1_000_000_000L;

  private final FakeClock base = new FakeClock();
  private final SteppingClock clock = new SteppingClock(base);
  private final TimedCounter counter = TimedCounter.rapl(ProbedMeter.CPU0, base);

  /**
   * Regression: the ledger aged its own windows at the read's time, then read the clock again for
   * every window of the counter; one of its own crossing the hour between the two was counted out
   * with the line that blames a window of another meter.
   */
  @Test
  void anOwnWindowTurningAnHourOldWithinARead_isNotTakenForAnotherMetersWindow() {
    try (CounterMeter meter = ProbedMeter.overPackageZero(counter, clock, r -> {})) {
      base.advanceMillis(5);
      MeterWindow lost = meter.open(Set.of(ProbedMeter.CPU0));
      base.advanceMillis(60 * MINUTE_MS - 1_000);
      // The poll reads the clock twice before it ages the windows; any later reading is 2 s on.
      clock.stepBackAfter(2, -2 * SECOND_NANOS);

      String log = CounterLogLevelsTest.logOf(meter::pollCounters);

      assertThat(log).doesNotContain("another meter");
      base.advanceMillis(5);
      String next = CounterLogLevelsTest.logOf(meter::pollCounters);
      assertThat(next).contains("taken as gone").doesNotContain("another meter");
      assertThat(lost.close(1).provenance()).isEqualTo(Provenance.Estimator);
      assertThat(OpenWindows.on(counter.hardware())).isZero();
    }
  }
}
