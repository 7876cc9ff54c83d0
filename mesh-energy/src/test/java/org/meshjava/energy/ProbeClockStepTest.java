package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The clock steps back while a liveness probe runs (a fake here; {@link System#nanoTime()} should
 * never). The probe's next sample was then as far ahead as the step, and it burned a core until the
 * clock got there: an hour's step, an hour's burn, with every window of the process disturbed (no
 * reading) all the while. It now starts over from the step. Fake time, no sleeps.
 */
class ProbeClockStepTest {
  private static final long HOUR_NANOS = 3_600_000_000_000L;

  private final FakeClock base = new FakeClock();
  private final SteppingClock clock = new SteppingClock(base);
  private final TimedCounter counter = TimedCounter.rapl(ProbedMeter.CPU0, base);

  @Test
  void aStepBackDuringTheProbe_startsItOver_insteadOfBurningForTheStep() {
    long before = base.nanoTime();
    clock.stepBackAfter(10, HOUR_NANOS); // a few reads into the meter's first probe
    try (CounterMeter meter = ProbedMeter.overPackageZero(counter, clock, r -> {})) {
      assertThat(base.nanoTime() - before)
          .as("time the probe took, the clock stepped back an hour during it")
          .isLessThan(HOUR_NANOS / 60);
    }
  }
}
