package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Provenance;

/**
 * Two meters of one process read the same package (two stewards that discovered with different
 * options, so no lease shares one meter): a serve alone in each meter's books is not alone on the
 * package, and neither is graded a reading of the whole counter (§3.3). Before, both were {@code
 * HwShunt}, each claiming the other's energy. Fake time, no sleeps.
 */
class TwoMetersOneCounterTest {
  private final FakeClock clock = new FakeClock();
  private final TimedCounter first = TimedCounter.rapl(ProbedMeter.CPU0, clock);
  private final TimedCounter second = TimedCounter.rapl(ProbedMeter.CPU0, clock);

  @Test
  void servesOverlappingInTwoMeters_areNeitherAReading() {
    try (CounterMeter a = clock.watch(ProbedMeter.overPackageZero(first, clock, r -> {}));
        CounterMeter b = clock.watch(ProbedMeter.overPackageZero(second, clock, r -> {}))) {
      clock.advanceMillis(5);
      MeterWindow inA = a.open(Set.of(ProbedMeter.CPU0));
      clock.advanceMillis(5);
      MeterWindow inB = b.open(Set.of(ProbedMeter.CPU0));
      clock.advanceMillis(50);
      assertThat(inB.close(1).provenance()).isEqualTo(Provenance.ModelBased);
      clock.advanceMillis(5);
      assertThat(inA.close(1).provenance()).isEqualTo(Provenance.ModelBased);

      assertThat(ProbedMeter.serveAlone(a, clock))
          .as("alone in both meters again")
          .isEqualTo(Provenance.HwShunt);
      assertThat(ProbedMeter.serveAlone(b, clock)).isEqualTo(Provenance.HwShunt);
    }
  }
}
