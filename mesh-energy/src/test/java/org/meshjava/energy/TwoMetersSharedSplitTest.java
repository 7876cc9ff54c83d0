package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.Provenance;

/**
 * Two meters of one process read one package through channels of their own. Their serves that
 * overlap are {@code ModelBased} in both (TwoMetersOneCounterTest); here, what those figures carry
 * and the tail rule across meters. Each meter used to split the energy among its own windows only,
 * so a serve alone in its meter's books took the counter's whole delta, and two concurrent serves
 * summed to twice what the package drew; and a serve opened in one meter straight after the other's
 * closed was a reading holding the end of that serve. Fake time, no sleeps.
 */
class TwoMetersSharedSplitTest {
  private static final long WORK_UJ = TwoMetersOnePackage.WORK_UJ;

  private final TwoMetersOnePackage pkg = new TwoMetersOnePackage();
  private final FakeClock clock = pkg.clock;

  @Test
  void concurrentServesInTwoMeters_sumToNoMoreThanTheCounterDrew() {
    try (CounterMeter a = clock.watch(pkg.overFirst());
        CounterMeter b = clock.watch(pkg.overSecond())) {
      TwoMetersOnePackage.Overlap both = pkg.overlapOverWork(a, b);
      Energy ofB = both.inB().close(1);
      clock.advanceMillis(5);
      Energy ofA = both.inA().close(1);
      long drawn = pkg.drawnSince(both.beforeUj());

      assertThat(ofA.provenance()).isEqualTo(Provenance.ModelBased);
      assertThat(ofB.provenance()).isEqualTo(Provenance.ModelBased);
      assertThat(ofA.uj() + ofB.uj())
          .as("the two figures of one package over %s µJ drawn", drawn)
          .isLessThanOrEqualTo(drawn);
      assertThat(ofB.uj()).as("about half the work in each").isGreaterThan(WORK_UJ / 3);
      assertThat(ofA.uj()).isGreaterThan(WORK_UJ / 3);
    }
  }

  @Test
  void aServeOpenedInOneMeterRightAfterTheOthersClose_holdsItsTail() {
    try (CounterMeter a = clock.watch(pkg.overFirst());
        CounterMeter b = clock.watch(pkg.overSecond())) {
      clock.advanceMillis(5);
      MeterWindow inA = a.open(Set.of(ProbedMeter.CPU0));
      clock.advanceMillis(50);
      assertThat(inA.close(1).provenance()).isEqualTo(Provenance.HwShunt);
      MeterWindow inB = b.open(Set.of(ProbedMeter.CPU0));
      clock.advanceMillis(50);
      assertThat(inB.close(1).provenance())
          .as("opened within an update period of the other meter's close")
          .isEqualTo(Provenance.ModelBased);
      assertThat(ProbedMeter.serveAlone(b, clock))
          .as("a period later, alone again")
          .isEqualTo(Provenance.HwShunt);
    }
  }
}
