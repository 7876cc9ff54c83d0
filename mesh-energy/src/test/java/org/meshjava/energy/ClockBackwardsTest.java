package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * The meter's clock steps back (a fake here; {@link System#nanoTime()} should never, but a
 * hypervisor or a broken TSC has been seen to). Every time mark the ledger kept was then in the
 * future: reads the counter missed for longer than it may go without hiding a wrap were not seen as
 * a gap, and the last close's tail covered every window opened for as long as the step. The first
 * read after the step now starts the books' times over from it: no window across the step is a
 * reading, and from there the gap, stall and tail rules measure in the new time. Fake time, no
 * sleeps.
 */
class ClockBackwardsTest {
  private static final EnergyDomain CPU0 = ProbedMeter.CPU0;
  private static final long HOUR_NANOS = 3_600_000_000_000L;
  private static final long MAX_READ_GAP_NANOS = 100_000_000L;

  private final FakeClock base = new FakeClock();
  private final SteppingClock clock = new SteppingClock(base);
  private final TimedCounter counter = TimedCounter.rapl(CPU0, base);

  /** Package 0's counter, which wraps unless read every 100 ms. */
  private final EnergyChannel wrapping = ForwardingChannel.readEvery(counter, MAX_READ_GAP_NANOS);

  private CounterMeter meter() {
    return ProbedMeter.overPackageZero(wrapping, clock, r -> {});
  }

  /** A serve of {@code millis} alone on package 0, opened 5 ms on; returns its grade. */
  private Provenance serve(CounterMeter meter, long millis) {
    base.advanceMillis(5);
    MeterWindow w = meter.open(Set.of(CPU0));
    for (long done = 0; done < millis; done += 50) {
      base.advanceMillis(50);
      meter.pollCounters(); // the timer's read, within the 100 ms bound
    }
    return w.close(1).provenance();
  }

  @Test
  void afterAStepBack_aWindowAcrossAnUnreadSpellLongerThanTheBound_isNoReading() {
    try (CounterMeter meter = meter()) {
      assertThat(serve(meter, 50)).isEqualTo(Provenance.HwShunt);
      clock.stepBack(HOUR_NANOS);
      // The first read after the step: the last close's tail, of unknown age, runs a period from
      // it.
      base.advanceMillis(5);
      meter.pollCounters();
      assertThat(serve(meter, 50)).as("a serve read throughout").isEqualTo(Provenance.HwShunt);
      base.advanceMillis(5);
      MeterWindow w = meter.open(Set.of(CPU0));
      base.advanceMillis(1_000); // unread for ten times the bound: a wrap may hide in it
      assertThat(w.close(1).provenance())
          .as("a window across a second unread after the step")
          .isEqualTo(Provenance.Estimator);
    }
  }

  @Test
  void afterAStepBack_aServeAloneIsAReadingOnceThePeriodHasPassed() {
    try (CounterMeter meter = meter()) {
      assertThat(serve(meter, 50)).isEqualTo(Provenance.HwShunt);
      clock.stepBack(HOUR_NANOS);
      base.advanceMillis(5);
      meter.pollCounters();
      assertThat(serve(meter, 50))
          .as("a serve alone, the last close an hour ahead by the stepped clock")
          .isEqualTo(Provenance.HwShunt);
    }
  }
}
