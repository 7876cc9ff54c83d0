package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * Two meters of one process on the same package, their windows overlapping in orders that the
 * notice an open sends to the other meters does not see by itself: the other meter was made while
 * the window was already open, or its serve ran between a window's entering its own counters and
 * its notice. Either way a window open across the other meter's serve means neither is a reading of
 * the package alone (§3.3). Fake time, no sleeps, one thread.
 */
class TwoMetersOpenOrderTest {
  private static final EnergyDomain DRAM0 = EnergyDomain.dram(0);

  private final FakeClock clock = new FakeClock();

  @Test
  void aMeterMadeWhileAnothersWindowIsOpen_gradesItsServeAcrossThatWindowShared() {
    TimedCounter aPackage = TimedCounter.rapl(ProbedMeter.CPU0, clock);
    try (CounterMeter a = ProbedMeter.overPackageZero(aPackage, clock, r -> {})) {
      clock.advanceMillis(5);
      MeterWindow inA = a.open(Set.of(ProbedMeter.CPU0));
      clock.advanceMillis(5);
      try (CounterMeter b =
          ProbedMeter.overPackageZero(
              TimedCounter.rapl(ProbedMeter.CPU0, clock).sameHardwareAs(aPackage),
              clock,
              r -> {})) {
        assertThat(ProbedMeter.serveAlone(b, clock))
            .as("a serve in the later meter while the first meter's window is open")
            .isEqualTo(Provenance.ModelBased);
        inA.close(1);
        assertThat(ProbedMeter.serveAlone(b, clock))
            .as("alone on the package again")
            .isEqualTo(Provenance.HwShunt);
      }
    }
  }

  @Test
  void aServeBetweenAnotherMetersEnteringAndItsNotice_isShared() {
    TimedCounter aPackage = TimedCounter.rapl(ProbedMeter.CPU0, clock);
    TimedCounter aDram = TimedCounter.rapl(DRAM0, clock);
    try (CounterMeter a = ProbedMeter.unprobed(clock, r -> {}, aPackage, aDram);
        CounterMeter b =
            ProbedMeter.overPackageZero(
                TimedCounter.rapl(ProbedMeter.CPU0, clock).sameHardwareAs(aPackage),
                clock,
                r -> {})) {
      a.probeNow();
      assertThat(a.liveDomains()).containsExactlyInAnyOrder(ProbedMeter.CPU0, DRAM0);
      AtomicBoolean fired = new AtomicBoolean();
      AtomicReference<Provenance> inB = new AtomicReference<>();
      // The first meter's open enters package 0, then reads its DRAM: the other meter's whole
      // serve runs there, with the first meter's window already open on package 0.
      aDram.onRead(
          () -> {
            if (fired.compareAndSet(false, true)) {
              inB.set(ProbedMeter.serveAlone(b, clock));
            }
          });
      clock.advanceMillis(5);
      MeterWindow inA = a.open(Set.of(ProbedMeter.CPU0));
      assertThat(fired).isTrue();
      assertThat(inB.get())
          .as("the other meter's serve, across this window's open share on package 0")
          .isEqualTo(Provenance.ModelBased);
      clock.advanceMillis(50);
      assertThat(inA.close(1).provenance()).isEqualTo(Provenance.ModelBased);
    }
  }
}
