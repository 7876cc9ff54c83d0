package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * The grading rules of §3.3 at their edges: a window exactly as long as the rule asks, a re-probe
 * exactly when it falls due, and a read that fails as a window opens.
 */
class CounterMeterEdgesTest {
  private static final EnergyDomain CPU0 = EnergyDomain.cpuPackage(0);
  private static final Duration REPROBE = Duration.ofMinutes(10);

  private final FakeClock clock = new FakeClock();
  private final List<Runnable> scheduled = new ArrayList<>();

  /** A meter over {@code cpu}, proved live, whose re-probes run only when the test says so. */
  private CounterMeter liveMeter(TimedCounter cpu) {
    CounterMeter meter =
        new CounterMeter(
            List.of(cpu),
            List.of(),
            LivenessPolicy.standard(),
            LivenessPolicy.nvml(),
            REPROBE,
            Optional.empty(),
            clock,
            scheduled::add);
    meter.probeNow();
    assertThat(meter.liveDomains()).containsExactly(CPU0);
    return clock.watch(meter);
  }

  /**
   * A 1 ms counter is trusted over a window of ten of its update periods
   * (DomainLedger.MIN_WINDOW_PERIODS), not over nine.
   */
  @Test
  void aWindowOfExactlyTheShortestTrustedLength_isMeasured() {
    CounterMeter meter = liveMeter(TimedCounter.rapl(CPU0, clock));

    MeterWindow exact = meter.open(Set.of(CPU0));
    clock.advanceMillis(DomainLedger.MIN_WINDOW_PERIODS);
    assertThat(exact.close(5).provenance()).isEqualTo(Provenance.HwShunt);

    MeterWindow shorter = meter.open(Set.of(CPU0));
    clock.advanceMillis(DomainLedger.MIN_WINDOW_PERIODS - 1);
    assertThat(shorter.close(5)).isEqualTo(Energy.estimated(5));
  }

  @Test
  void aReprobe_isScheduledByTheFirstOpenAtItsPeriod() {
    CounterMeter meter = liveMeter(TimedCounter.rapl(CPU0, clock));
    clock.advanceMillis(REPROBE.toMillis() - 1);
    meter.open(Set.of(CPU0)).abandon();
    assertThat(scheduled).isEmpty();

    clock.advanceMillis(1);
    meter.open(Set.of(CPU0)).abandon();
    assertThat(scheduled).hasSize(1);
  }

  /**
   * A failed read demotes a live counter wherever it happens, and the demotion asks for a re-probe
   * at once: at a window's open too, not only at a close.
   */
  @Test
  void aReadFailingAsAWindowOpens_demotesTheCounter_andSchedulesItsReprobe() {
    TimedCounter cpu = TimedCounter.rapl(CPU0, clock);
    CounterMeter meter = liveMeter(cpu);
    cpu.failWith(CounterIssue.UNREADABLE);

    MeterWindow w = meter.open(Set.of(CPU0));

    CounterStatus status = meter.counters().getFirst();
    assertThat(status.state()).isEqualTo(CounterState.NOT_LIVE);
    assertThat(status.issue()).contains(CounterIssue.READ_FAILED);
    assertThat(scheduled).as("a re-probe was scheduled by the open").hasSize(1);
    cpu.failWith(null);
    clock.advanceMillis(50);
    assertThat(w.close(8)).isEqualTo(Energy.estimated(8));
  }

  /** The steward's readiness report shows the meter by this name: the counters it reads. */
  @Test
  void aMetersName_listsItsCounters() {
    CounterMeter meter = liveMeter(TimedCounter.rapl(CPU0, clock));

    assertThat(meter.name()).isEqualTo("counters[timed:" + CPU0 + "]");
  }
}
