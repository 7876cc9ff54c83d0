package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Provenance;

/**
 * A probe disturbs the windows of every meter of the process (its burn lands on some package, and
 * its tail is published up to an update period after it stops). A meter made while another meter's
 * probe is under way is disturbed by it too, until it ends: before, only the meters open when the
 * probe began were, and a serve in the new meter during the probe's settle was graded a reading
 * holding the end of the probe's burn. Fake time, no sleeps.
 */
class ProbeDuringMeterStartTest {
  private final TwoMetersOnePackage pkg = new TwoMetersOnePackage();

  /** The fake clock, running {@code duringSettle} once, at the first rest (a probe's settle). */
  private static final class SettleHook implements ProbeClock {
    private final FakeClock base;
    private Runnable duringSettle;

    SettleHook(FakeClock base, Runnable duringSettle) {
      this.base = base;
      this.duringSettle = duringSettle;
    }

    @Override
    public long nanoTime() {
      return base.nanoTime();
    }

    @Override
    public void burnUntil(long deadlineNanos) {
      base.burnUntil(deadlineNanos);
    }

    @Override
    public void idleUntil(long deadlineNanos) {
      Runnable hook = duringSettle;
      duringSettle = null;
      if (hook != null) {
        hook.run();
      }
      base.idleUntil(deadlineNanos);
    }
  }

  @Test
  void aServeInAMeterMadeDuringAnotherMetersProbe_isNoReadingUntilThatProbeEnds() {
    Provenance[] duringTheOtherProbe = new Provenance[1];
    CounterMeter[] made = new CounterMeter[1];
    SettleHook clock =
        new SettleHook(
            pkg.clock,
            () -> {
              made[0] = pkg.overSecond();
              duringTheOtherProbe[0] = ProbedMeter.serveAlone(made[0], pkg.clock);
            });
    try (CounterMeter first =
        new CounterMeter(
            List.of(pkg.first),
            List.of(),
            LivenessPolicy.standard(),
            Duration.ofMinutes(10),
            Optional.empty(),
            clock,
            r -> {})) {
      first.probeNow();
      try (CounterMeter second = made[0]) {
        assertThat(duringTheOtherProbe[0])
            .as("a serve in a meter made while the other meter's probe settled")
            .isEqualTo(Provenance.Estimator);
        assertThat(ProbedMeter.serveAlone(second, pkg.clock))
            .as("once that probe ended")
            .isEqualTo(Provenance.HwShunt);
      }
    }
  }
}
