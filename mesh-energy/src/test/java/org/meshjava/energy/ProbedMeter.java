package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.meshjava.core.EnergyDomain;

/**
 * A meter over one counter of CPU package 0, probed at once and checked live, with the standard
 * liveness policy and re-probes every 10 minutes handed to {@code reprobes}: the start of every
 * grading test that feeds one counter faults after its probe.
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
}
