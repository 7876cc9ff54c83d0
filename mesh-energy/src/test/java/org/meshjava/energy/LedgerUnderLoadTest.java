package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * Hostile use of one meter: thousands of short windows on one domain from many threads, and the
 * meter closed under open windows. The ledger must keep no share of a window once it is closed or
 * abandoned, and a window outliving its meter must grade, never throw (SPEC.md 40 §3). Fake time;
 * the clock runs the watch.
 */
class LedgerUnderLoadTest {
  private static final EnergyDomain CPU0 = EnergyDomain.cpuPackage(0);

  private final FakeClock clock = new FakeClock();
  private final List<Runnable> scheduled = new ArrayList<>();
  private final TimedCounter cpu = TimedCounter.rapl(CPU0, clock);

  private CounterMeter meter() {
    return clock.watch(ProbedMeter.overPackageZero(cpu, clock, scheduled::add));
  }

  @Test
  void thousandsOfShortWindowsFromManyThreads_leaveNoShareBehind() throws Exception {
    try (CounterMeter meter = meter();
        ExecutorService pool = Executors.newFixedThreadPool(8)) {
      List<Future<Integer>> served = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        served.add(
            pool.submit(
                () -> {
                  int hw = 0;
                  for (int i = 0; i < 500; i++) {
                    MeterWindow w = meter.open(Set.of(CPU0));
                    cpu.work(ThreadLocalRandom.current().nextInt(100));
                    clock.advanceMillis(ThreadLocalRandom.current().nextInt(3));
                    if (i % 7 == 0) {
                      w.abandon();
                    } else if (w.close(1).provenance() == Provenance.HwShunt) {
                      hw++;
                    }
                  }
                  return hw;
                }));
      }
      for (Future<Integer> f : served) {
        f.get();
      }
      assertThat(ProbedMeter.serveAlone(meter, clock)).isEqualTo(Provenance.HwShunt);
    }
  }

  @Test
  void meterClosedUnderOpenWindows_gradesThemEstimator_andThrowsNothing() {
    CounterMeter meter = meter();
    MeterWindow closing = meter.open(Set.of(CPU0));
    MeterWindow abandoned = meter.open(Set.of(CPU0));
    clock.advanceMillis(50);
    meter.close();
    clock.advanceMillis(50);
    assertThat(closing.close(7)).isEqualTo(Energy.estimated(7));
    abandoned.abandon();
    assertThat(cpu.released).isTrue();
    // A window opened on the closed meter is the estimate too.
    assertThat(meter.open(Set.of(CPU0)).close(3)).isEqualTo(Energy.estimated(3));
  }
}
