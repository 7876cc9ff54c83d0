package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.Provenance;

/**
 * §3.3 across two meters of one process on one package, where one meter's window is gone from its
 * meter's sight: taken as gone by the other meter's read (an hour old), or left open in a meter
 * closed since. No figure may be a reading of a window another serve shared, and the figures
 * together may not hold more than the package drew. Fake time, no sleeps.
 */
class CrossMeterHonestyTest {
  private static final long MINUTE_MS = 60_000;

  private final TwoMetersOnePackage pkg = new TwoMetersOnePackage();

  @Test
  void aStaleWindowCountedOutByTheOtherMeter_takesNoShareOfLaterServes() {
    try (CounterMeter a = pkg.overFirst();
        CounterMeter b = pkg.overSecond()) {
      pkg.clock.advanceMillis(5);
      MeterWindow lost = a.open(Set.of(ProbedMeter.CPU0));
      pkg.clock.advanceMillis(61 * MINUTE_MS);
      // b's open counts the lost window out; a learns of it at the read b's open asks of it.
      TwoMetersOnePackage.Overlap both = pkg.overlapOverWork(b, a);
      Energy ofB = both.inA().close(1);
      pkg.clock.advanceMillis(5);
      Energy ofA = both.inB().close(1);
      long drawn = pkg.drawnSince(both.beforeUj());

      assertThat(ofA.provenance()).isEqualTo(Provenance.ModelBased);
      assertThat(ofB.provenance()).isEqualTo(Provenance.ModelBased);
      assertThat(ofA.uj() + ofB.uj())
          .as("the two figures (%s, %s) of one package over %s µJ drawn", ofA, ofB, drawn)
          .isLessThanOrEqualTo(drawn);
      assertThat(ofA.uj())
          .as("the serve in the lost window's meter, split with one other serve only")
          .isGreaterThan(TwoMetersOnePackage.WORK_UJ / 3);
      assertThat(lost.close(1).provenance()).isEqualTo(Provenance.Estimator);
      assertThat(OpenWindows.on(pkg.first.hardware())).isZero();
    }
  }

  @Test
  void aWindowStillOpenInAMeterClosedMidServe_keepsTheOtherMetersServeFromBeingAReading() {
    try (CounterMeter b = pkg.overSecond()) {
      MeterWindow orphan;
      try (CounterMeter a = pkg.overFirst()) {
        pkg.clock.advanceMillis(5);
        orphan = a.open(Set.of(ProbedMeter.CPU0));
      }
      pkg.clock.advanceMillis(5);
      long before = pkg.first.drawnUj();
      MeterWindow inB = b.open(Set.of(ProbedMeter.CPU0));
      pkg.clock.advanceMillis(20);
      pkg.first.work(TwoMetersOnePackage.WORK_UJ);
      pkg.second.work(TwoMetersOnePackage.WORK_UJ);
      pkg.clock.advanceMillis(30);
      Energy ofB = inB.close(1);
      long drawn = pkg.drawnSince(before);
      assertThat(ofB.provenance())
          .as("a serve beside a window of a meter closed mid-serve")
          .isEqualTo(Provenance.ModelBased);
      assertThat(ofB.uj()).as("its share of %s µJ drawn", drawn).isLessThanOrEqualTo(drawn / 2 + 1);
      String log =
          CounterLogLevelsTest.logOf(
              () ->
                  assertThat(orphan.close(1).provenance())
                      .as("the window whose meter was closed")
                      .isEqualTo(Provenance.Estimator));
      assertThat(log).as("the log of its close").doesNotContain("demoted");
      assertThat(OpenWindows.on(pkg.first.hardware())).isZero();
      assertThat(ProbedMeter.serveAlone(b, pkg.clock))
          .as("alone once that window closed")
          .isEqualTo(Provenance.HwShunt);
    }
  }
}
