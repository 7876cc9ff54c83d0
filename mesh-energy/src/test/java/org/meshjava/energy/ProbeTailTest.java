package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * A counter's value lags the energy drawn by up to one update period, so the end of a probe's load
 * shows in the counter only after the probe. A window opened at once after the probe must not
 * receive it as the serve's energy (SPEC.md 40 §2): the probe's disturbance lasts one update period
 * past its load. Fake time: the probe's load is work added at each of its reads.
 */
class ProbeTailTest {
  private static final EnergyDomain GPU0 = EnergyDomain.gpu(0);

  /** 700 W of probe load, as µJ per read at the NVML cadence's 2 ms polls. */
  private static final long LOAD_UJ_PER_READ = 1_400_000;

  private final FakeClock clock = new FakeClock();
  private final List<Runnable> scheduled = new ArrayList<>();

  /** A board at 60 W idle refreshing its counter every 100 ms. */
  private final TimedCounter gpu = new TimedCounter(GPU0, clock, 100, 60_000, true);

  @Test
  void aWindowOpenedAsAProbeEnds_receivesNoneOfTheProbesLoad() {
    CounterMeter meter = clock.watch(ProbedMeter.unprobed(clock, scheduled::add, gpu));
    AtomicBoolean probing = new AtomicBoolean(true);
    gpu.onRead(
        () -> {
          if (probing.get()) {
            gpu.work(LOAD_UJ_PER_READ);
          }
        });
    clock.advanceMillis(50); // the probe ends half a refresh after the counter's last one
    meter.probeNow();
    probing.set(false);
    assertThat(meter.liveDomains()).containsExactly(GPU0);

    MeterWindow w = meter.open(Set.of(GPU0));
    clock.advanceMillis(1_100);
    Energy e = w.close(1);

    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    // 1.1 s at 60 W is 66 J, give or take one 100 ms refresh (6 J); the probe's last 50 ms at
    // 700 W would add 35 J more.
    assertThat(e.measuredUj().orElseThrow()).isLessThanOrEqualTo(72_000_000);
  }

  /**
   * A probe disturbs the counters of every meter in the process, so its rest after the load must
   * outlast the slowest of them, not only its own meter's: here a meter over a millisecond counter
   * probes while another meter's board, refreshed every 100 ms, carries the load.
   */
  @Test
  void aWindowOfAnotherMeterOpenedAsAProbeEnds_receivesNoneOfTheProbesLoad() {
    CounterMeter gpuMeter = clock.watch(ProbedMeter.unprobed(clock, scheduled::add, gpu));
    gpuMeter.probeNow();
    assertThat(gpuMeter.liveDomains()).containsExactly(GPU0);
    TimedCounter cpu = TimedCounter.rapl(EnergyDomain.cpuPackage(0), clock);
    CounterMeter cpuMeter = clock.watch(ProbedMeter.unprobed(clock, scheduled::add, cpu));
    AtomicBoolean probing = new AtomicBoolean(true);
    // 700 W on the board while the other meter's probe polls its counter every millisecond.
    cpu.onRead(
        () -> {
          if (probing.get()) {
            gpu.work(LOAD_UJ_PER_READ / 2);
          }
        });
    clock.advanceMillis(50);
    try {
      cpuMeter.probeNow();
      probing.set(false);
      assertThat(cpuMeter.liveDomains()).containsExactly(EnergyDomain.cpuPackage(0));

      MeterWindow w = gpuMeter.open(Set.of(GPU0));
      clock.advanceMillis(1_100);
      Energy e = w.close(1);

      assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
      assertThat(e.measuredUj().orElseThrow()).isLessThanOrEqualTo(72_000_000);
    } finally {
      cpuMeter.close();
      gpuMeter.close();
    }
  }
}
