package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * A meter over one counter of CPU package 0, probed at once and checked live, with the standard
 * liveness policy and re-probes every 10 minutes handed to {@code reprobes}: the start of every
 * grading test that feeds one counter faults after its probe. Also the meter, not yet probed, that
 * grading tests over several counters start from.
 */
final class ProbedMeter {
  static final EnergyDomain CPU0 = EnergyDomain.cpuPackage(0);

  private ProbedMeter() {}

  static CounterMeter overPackageZero(EnergyChannel channel, ProbeClock clock, Executor reprobes) {
    CounterMeter meter =
        new CounterMeter(
            List.of(channel),
            List.of(),
            LivenessPolicy.standard(),
            Duration.ofMinutes(10),
            Optional.empty(),
            clock,
            reprobes);
    meter.probeNow();
    assertThat(meter.liveDomains()).containsExactly(CPU0);
    return meter;
  }

  /**
   * A meter over {@code channels}, not yet probed, at the standard cadence and NVML's for counters
   * that update slowly, re-probing every 10 minutes on {@code reprobes} (only when the test runs
   * what it was handed).
   */
  static CounterMeter unprobed(ProbeClock clock, Executor reprobes, EnergyChannel... channels) {
    return new CounterMeter(
        List.of(channels),
        List.of(),
        LivenessPolicy.standard(),
        LivenessPolicy.nvml(),
        Duration.ofMinutes(10),
        Optional.empty(),
        clock,
        reprobes);
  }

  /**
   * Serves 50 ms on package 0 (and its DRAM where the meter counts it) 5 ms after the last event,
   * alone, and returns the grade: a reading, unless a share of an earlier window was left behind.
   */
  static Provenance serveAlone(CounterMeter meter, FakeClock clock) {
    clock.advanceMillis(5);
    MeterWindow w = meter.open(Set.of(CPU0));
    clock.advanceMillis(50);
    return w.close(1).provenance();
  }
}
