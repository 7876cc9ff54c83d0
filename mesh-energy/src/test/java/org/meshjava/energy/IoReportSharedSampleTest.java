package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * One IOReport sample delta carries every rail at once, whichever domain's read took it: a sample
 * that fails, taken for the CPU, holds the GPU's energy of the same interval too, and the next
 * sample starts after it. The GPU's next read must not present what is left as the whole of its
 * window (SPEC.md 40 §1, IOReport). Fake time; the CPU rail draws 10 W, the GPU 20 W.
 */
class IoReportSharedSampleTest {
  private static final EnergyDomain CPU = EnergyDomain.cpuPackage(0);
  private static final EnergyDomain GPU = EnergyDomain.gpu(0);

  private final FakeClock clock = new FakeClock();
  private final List<Runnable> reprobes = new ArrayList<>();
  private long lastSampleNanos = clock.nanoTime();
  private boolean cpuRailGarbled;

  /** Each delta holds what each rail drew since the previous sample, in mJ. */
  private List<IoReportEntry> sample() throws CounterException {
    long ms = (clock.nanoTime() - lastSampleNanos) / 1_000_000;
    lastSampleNanos = clock.nanoTime();
    return List.of(
        new IoReportEntry("Energy Model", "CPU Energy", "mJ", cpuRailGarbled ? -1 : ms * 10),
        new IoReportEntry("Energy Model", "GPU Energy", "mJ", ms * 20));
  }

  /** Re-probes are collected, not run: a probe would disturb the GPU's window by itself. */
  private CounterMeter meter() {
    return clock.watch(IoReportTest.meterOver(this::sample, clock, reprobes::add));
  }

  @Test
  void aSampleThatFailsForTheCpu_failsTheGpusNextReadToo_insteadOfLosingItsEnergy() {
    CounterMeter meter = meter();
    meter.probeNow();
    assertThat(meter.liveDomains()).containsExactlyInAnyOrder(CPU, GPU);

    MeterWindow gpuServe = meter.open(Set.of(GPU));
    clock.advanceMillis(250);
    cpuRailGarbled = true; // the sample a CPU serve's open takes fails, with 5 J of GPU in it
    MeterWindow cpuServe = meter.open(Set.of(CPU));
    cpuRailGarbled = false;
    clock.advanceMillis(250);
    Energy gpu = gpuServe.close(7);
    cpuServe.abandon();

    assertThat(gpu)
        .as("500 ms at 20 W is 10 J; the failed sample's 5 J never reached the GPU's total")
        .isEqualTo(Energy.estimated(7));
    assertThat(meter.counters())
        .filteredOn(s -> s.domain().equals(Optional.of(GPU)))
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.issue()).contains(CounterIssue.READ_FAILED);
              assertThat(s.detail()).contains("another domain").contains("went backwards");
            });
    meter.close();
  }

  @Test
  void afterTheMissedSample_theGpuIsReadAgain_andAServeAfterItsReprobeIsAReading() {
    CounterMeter meter = meter();
    meter.probeNow();
    cpuRailGarbled = true;
    meter.open(Set.of(CPU)).abandon();
    cpuRailGarbled = false;
    clock.advanceMillis(10);
    meter.open(Set.of(GPU)).abandon(); // the GPU's read that reports the missed sample
    reprobes.forEach(Runnable::run);
    reprobes.clear();
    clock.advanceMillis(50); // the probe's tail rule: a period past the last close

    MeterWindow w = meter.open(Set.of(GPU));
    clock.advanceMillis(250);
    Energy e = w.close(7);

    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(e.measuredUj()).hasValue(5_000_000);
    meter.close();
  }

  @Test
  void aSampleThatThrowsAnError_failsTheOtherDomainsNextRead_asAFailedSampleDoes()
      throws Exception {
    boolean[] throwNext = {false};
    IoReportSession session =
        new IoReportSession(
            () -> {
              if (throwNext[0]) {
                throwNext[0] = false;
                sample(); // the sampler has moved past this sample when the JVM fails in it
                throw new OutOfMemoryError("Java heap space");
              }
              return sample();
            });
    session.totalUj(EnergyDomain.Kind.CPU_PACKAGE); // primes
    clock.advanceMillis(250);
    throwNext[0] = true;

    assertThatThrownBy(() -> session.totalUj(EnergyDomain.Kind.CPU_PACKAGE))
        .isInstanceOf(OutOfMemoryError.class);
    clock.advanceMillis(250);

    assertThatThrownBy(() -> session.totalUj(EnergyDomain.Kind.GPU))
        .as("the GPU's 250 ms in the sample that threw are in no total")
        .isInstanceOf(CounterException.class)
        .hasMessageContaining("another domain")
        .hasMessageContaining("OutOfMemoryError");
  }
}
