package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * A counter whose every read throws an {@link Error} (a driver's fault the meter does not turn into
 * a failed read) is demoted and set aside after {@link DomainLedger#ERRORS_BEFORE_SET_ASIDE} reads
 * in a row: the serves on its domain are graded {@code Estimator} and no longer see its Error, and
 * its re-probe brings it back once it reads again. Fake time, no sleeps.
 */
class ThrowingCounterSetAsideTest {
  private final FakeClock clock = new FakeClock();
  private final TimedCounter cpu = TimedCounter.rapl(ProbedMeter.CPU0, clock);
  private final TimedCounter other = TimedCounter.rapl(EnergyDomain.cpuPackage(1), clock);
  private final List<Runnable> reprobes = new ArrayList<>();

  /** Serves 50 ms on package 0; returns what the serve saw thrown, or its figure. */
  private static Object serve(CounterMeter meter, FakeClock clock) {
    clock.advanceMillis(5);
    MeterWindow[] w = new MeterWindow[1];
    Throwable atOpen = catchThrowable(() -> w[0] = meter.open(Set.of(ProbedMeter.CPU0)));
    if (atOpen != null) {
      return atOpen;
    }
    clock.advanceMillis(50);
    Energy[] e = new Energy[1];
    Throwable atClose = catchThrowable(() -> e[0] = w[0].close(1));
    return atClose != null ? atClose : e[0];
  }

  private void everyReadThrows(Supplier<Error> error) {
    cpu.onRead(
        () -> {
          throw error.get();
        });
  }

  @Test
  void aCounterEveryReadOfWhichThrowsAnError_isSetAsideAndItsServesAreEstimator() {
    try (CounterMeter meter = clock.watch(ProbedMeter.overPackageZero(cpu, clock, reprobes::add))) {
      everyReadThrows(() -> new AssertionError("driver fault"));
      assertThat(serve(meter, clock)).isInstanceOf(AssertionError.class);
      assertThat(serve(meter, clock)).isInstanceOf(AssertionError.class);
      for (int i = 0; i < 5; i++) {
        assertThat(serve(meter, clock))
            .as("serve %s after the counter was set aside", i)
            .isInstanceOfSatisfying(
                Energy.class, e -> assertThat(e.provenance()).isEqualTo(Provenance.Estimator));
      }
      assertThat(meter.liveDomains()).isEmpty();
      assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.READ_FAILED);
      assertThat(meter.counters().getFirst().detail())
          .contains("driver fault")
          .contains("read again only by its re-probe");

      cpu.onRead(() -> {});
      assertThat(reprobes).as("the demotion asked for a re-probe").hasSize(1);
      reprobes.removeFirst().run();
      assertThat(meter.liveDomains()).containsExactly(ProbedMeter.CPU0);
      assertThat(serve(meter, clock))
          .isInstanceOfSatisfying(
              Energy.class, e -> assertThat(e.provenance()).isEqualTo(Provenance.HwShunt));
    }
  }

  // A VirtualMachineError still reaches the serve that read it (the process is in trouble, not the
  // counter alone), but once set aside the counter is not read on a serve's path again.
  @Test
  void aCounterThrowingAVirtualMachineError_isSetAsideAndThenNotReadByServes() {
    try (CounterMeter meter = clock.watch(ProbedMeter.overPackageZero(cpu, clock, reprobes::add))) {
      everyReadThrows(() -> new InternalError("fault in an unsafe memory access"));
      for (int i = 0; i < 3; i++) {
        assertThat(serve(meter, clock)).isInstanceOf(InternalError.class);
      }
      assertThat(meter.liveDomains()).isEmpty();
      for (int i = 0; i < 5; i++) {
        assertThat(serve(meter, clock))
            .as("serve %s after the counter was set aside", i)
            .isInstanceOfSatisfying(
                Energy.class, e -> assertThat(e.provenance()).isEqualTo(Provenance.Estimator));
      }
    }
  }

  /**
   * Regression: the read that set the counter aside threw on any VirtualMachineError, its own kind
   * of rule, so a counter's stack overflow or the fault of a read of a file it mapped that was cut
   * short ("a fault occurred in an unsafe memory access operation") reached a third serve raw. The
   * one rule for the JVM failing ({@code JvmFailure}) makes both the counter's failed read.
   */
  @Test
  void aCountersOwnErrorThatSetsItAside_isAFailedRead_notThrownOn() {
    List<Supplier<Error>> errors =
        List.of(
            () -> new InternalError("a fault occurred in an unsafe memory access operation"),
            () -> new StackOverflowError("simulated"));
    for (Supplier<Error> error : errors) {
      try (CounterMeter meter =
          clock.watch(ProbedMeter.overPackageZero(cpu, clock, reprobes::add))) {
        everyReadThrows(error);
        assertThat(serve(meter, clock)).isInstanceOf(Error.class);
        assertThat(serve(meter, clock)).isInstanceOf(Error.class);
        assertThat(serve(meter, clock))
            .as("the serve whose read set %s aside", error.get())
            .isInstanceOfSatisfying(
                Energy.class, e -> assertThat(e.provenance()).isEqualTo(Provenance.Estimator));
        assertThat(meter.liveDomains()).isEmpty();
        cpu.onRead(() -> {});
      }
    }
  }

  // A re-probe takes every counter due at once (all of them at the periodic one): a counter set
  // aside whose probe read threw on would fail the probe of the others, and leave them not live.
  @Test
  void theReprobeOfACounterSetAside_stillProvesTheOthersLive() {
    try (CounterMeter meter = ProbedMeter.unprobed(clock, reprobes::add, cpu, other)) {
      meter.probeNow();
      assertThat(meter.liveDomains()).hasSize(2);
      everyReadThrows(() -> new InternalError("fault in an unsafe memory access"));
      for (int i = 0; i < 3; i++) {
        assertThat(serve(meter, clock)).isInstanceOf(InternalError.class);
      }
      clock.advanceMillis(5);
      meter.probeNow();
      assertThat(meter.liveDomains()).containsExactly(EnergyDomain.cpuPackage(1));
      assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.READ_FAILED);
    }
  }
}
