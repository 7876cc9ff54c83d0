package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * A window leaves every domain's share, even when leaving one throws: a share left open marks every
 * later window on its domain overlapped, so none could be a reading again (SPEC.md 40 §3). What
 * throws here is an {@link Error} from a counter's read, which no read failure handling catches.
 */
class WindowLeaveFailureTest {
  private static final EnergyDomain CPU0 = EnergyDomain.cpuPackage(0);
  private static final EnergyDomain DRAM0 = EnergyDomain.dram(0);

  private final FakeClock clock = new FakeClock();
  private final List<Runnable> scheduled = new ArrayList<>();

  private final TimedCounter cpu = TimedCounter.rapl(CPU0, clock);
  private final TimedCounter dram = TimedCounter.rapl(DRAM0, clock);

  /** Makes every read of {@code counter} throw an {@link Error}, or read again ({@code false}). */
  private static void failing(TimedCounter counter, boolean fail) {
    counter.onRead(
        fail
            ? () -> {
              throw new AssertionError("read of " + counter.name() + " broke");
            }
            : () -> {});
  }

  private CounterMeter meter() {
    CounterMeter meter = clock.watch(ProbedMeter.unprobed(clock, scheduled::add, cpu, dram));
    meter.probeNow();
    assertThat(meter.liveDomains()).containsExactly(CPU0, DRAM0);
    clock.advanceMillis(5);
    return meter;
  }

  @Test
  void closeWhoseFirstShareThrows_stillLeavesEveryShare() {
    try (CounterMeter meter = meter()) {
      MeterWindow w = meter.open(Set.of(CPU0)); // covers CPU0, then DRAM0
      clock.advanceMillis(50);
      failing(cpu, true);
      failing(dram, true);
      Throwable thrown = catchThrowable(() -> w.close(1));
      failing(cpu, false);
      failing(dram, false);
      // The thrown reads are no demotion (no read failure caught them): the counters stay live.
      assertThat(ProbedMeter.serveAlone(meter, clock)).isEqualTo(Provenance.HwShunt);
      assertThat(thrown).isInstanceOf(AssertionError.class).hasMessageContaining("cpu_package:0");
      assertThat(thrown.getSuppressed())
          .singleElement()
          .satisfies(e -> assertThat(e).hasMessageContaining("dram:0"));
    }
  }

  @Test
  void openWhoseSecondShareThrows_leavesTheFirstAgain() {
    try (CounterMeter meter = meter()) {
      failing(dram, true);
      assertThatThrownBy(() -> meter.open(Set.of(CPU0))).isInstanceOf(AssertionError.class);
      failing(dram, false);
      assertThat(ProbedMeter.serveAlone(meter, clock)).isEqualTo(Provenance.HwShunt);
    }
  }
}
