package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Provenance;

/**
 * Two meters of one process read the same package (two stewards that discovered with different
 * options, so no lease shares one meter): a serve alone in each meter's books is not alone on the
 * package, and neither is graded a reading of the whole counter (§3.3). Before, both were {@code
 * HwShunt}, each claiming the other's energy. Meters whose counters share the domain's name but not
 * the hardware (two fake trees side by side, two GPU visibilities) do not link: linked by the name,
 * each serve was {@code ModelBased}. Fake time, no sleeps.
 */
class TwoMetersOneCounterTest {
  private final FakeClock clock = new FakeClock();
  private final TimedCounter first = TimedCounter.rapl(ProbedMeter.CPU0, clock);

  /** A serve in {@code a}, and one in {@code b} inside it; returns their grades, b's first. */
  private List<Provenance> overlappingServes(CounterMeter a, CounterMeter b) {
    clock.advanceMillis(5);
    MeterWindow inA = a.open(Set.of(ProbedMeter.CPU0));
    clock.advanceMillis(5);
    MeterWindow inB = b.open(Set.of(ProbedMeter.CPU0));
    clock.advanceMillis(50);
    Provenance ofB = inB.close(1).provenance();
    clock.advanceMillis(5);
    return List.of(ofB, inA.close(1).provenance());
  }

  @Test
  void servesOverlappingInTwoMeters_areNeitherAReading() {
    TimedCounter second = TimedCounter.rapl(ProbedMeter.CPU0, clock).sameHardwareAs(first);
    try (CounterMeter a = clock.watch(ProbedMeter.overPackageZero(first, clock, r -> {}));
        CounterMeter b = clock.watch(ProbedMeter.overPackageZero(second, clock, r -> {}))) {
      assertThat(overlappingServes(a, b))
          .containsExactly(Provenance.ModelBased, Provenance.ModelBased);

      assertThat(ProbedMeter.serveAlone(a, clock))
          .as("alone in both meters again")
          .isEqualTo(Provenance.HwShunt);
      assertThat(ProbedMeter.serveAlone(b, clock)).isEqualTo(Provenance.HwShunt);
    }
  }

  @Test
  void overlappingServesOnDifferentCountersOfOneName_areEachAReading() {
    TimedCounter second = TimedCounter.rapl(ProbedMeter.CPU0, clock);
    try (CounterMeter a = clock.watch(ProbedMeter.overPackageZero(first, clock, r -> {}));
        CounterMeter b = clock.watch(ProbedMeter.overPackageZero(second, clock, r -> {}))) {
      assertThat(overlappingServes(a, b)).containsExactly(Provenance.HwShunt, Provenance.HwShunt);
    }
  }
}
