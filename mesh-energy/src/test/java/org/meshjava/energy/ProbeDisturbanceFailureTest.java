package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * A probe registers itself as running, so that a meter made during it is disturbed too, and then
 * begins the disturbance of every ledger of the process. Something thrown between the two (a stack
 * overflow entering a ledger's monitor) must still take the probe out again: left registered, it
 * disturbs every meter made later for good, and every ledger it began with it. Fake time.
 */
class ProbeDisturbanceFailureTest {
  private final FakeClock clock = new FakeClock();

  /**
   * Regression: the registration stood before the try whose finally removes it, so a stack overflow
   * there left it registered, and no serve of the probing meter or of any meter made afterwards was
   * graded a reading again.
   */
  @Test
  void aProbeThatFailsBeginningADisturbance_leavesNoMeterDisturbed() {
    TimedCounter a = TimedCounter.rapl(ProbedMeter.CPU0, clock);
    TimedCounter b = TimedCounter.rapl(EnergyDomain.cpuPackage(1), clock);
    try (CounterMeter probing = ProbedMeter.overPackageZero(a, clock, r -> {});
        CounterMeter other = ProbedMeter.unprobed(clock, r -> {}, b)) {
      DomainLedger failing = other.ledger(EnergyDomain.cpuPackage(1));
      assertThat(failing).isNotNull();
      failing.beforeDisturbance(
          () -> {
            throw new StackOverflowError("entering the ledger's monitor");
          });

      assertThatThrownBy(probing::probeNow).isInstanceOf(StackOverflowError.class);
      failing.beforeDisturbance(() -> {});

      assertThat(ProbedMeter.serveAlone(probing, clock))
          .as("the probing meter's own ledger, whose disturbance had begun")
          .isEqualTo(Provenance.HwShunt);
      TimedCounter c = TimedCounter.rapl(ProbedMeter.CPU0, clock);
      try (CounterMeter later = ProbedMeter.overPackageZero(c, clock, r -> {})) {
        assertThat(ProbedMeter.serveAlone(later, clock))
            .as("a meter made after the failed probe")
            .isEqualTo(Provenance.HwShunt);
      }
    }
  }
}
