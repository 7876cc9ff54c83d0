package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;
import org.meshjava.core.Provenance;

/**
 * A counter reset to zero in the middle of a window (a driver reloaded), read by the watch while
 * the serve runs and counting up from zero after it: the window across it is no reading, nor is one
 * opened before the re-probe, and the first serve after the re-probe is measured from the new
 * totals alone. Fake time under the watch, no sleeps.
 */
class CounterResetMidWindowTest {
  private static final EnergyDomain CPU0 = ProbedMeter.CPU0;

  private final FakeClock clock = new FakeClock();
  private final List<Runnable> scheduled = new ArrayList<>();
  private final TimedCounter counter = TimedCounter.rapl(CPU0, clock);
  private volatile long resetAtUj = -1;

  /** The counter, counting from zero again once {@link #resetAtUj} is set. */
  private final EnergyChannel resetting =
      new ForwardingChannel(counter) {
        @Override
        public long readTotalUj() throws CounterException {
          long total = super.readTotalUj();
          return resetAtUj < 0 ? total : total - resetAtUj;
        }
      };

  @Test
  void aResetMidWindow_isNoReading_andTheServeAfterTheReprobeIsMeasuredFromTheNewTotals()
      throws CounterException {
    CounterMeter meter = clock.watch(ProbedMeter.overPackageZero(resetting, clock, scheduled::add));
    try {
      clock.advanceMillis(5);
      MeterWindow across = meter.open(Set.of(CPU0));
      clock.advanceMillis(25);
      resetAtUj = counter.readTotalUj();
      counter.work(2_000);
      clock.advanceMillis(25);
      assertThat(across.close(7)).isEqualTo(Energy.estimated(7));
      assertThat(meter.counters().getFirst().issue()).contains(CounterIssue.COUNTER_RESET);
      assertThat(ProbedMeter.serveAlone(meter, clock))
          .as("before the re-probe")
          .isEqualTo(Provenance.Estimator);
      assertThat(scheduled).as("the re-probe").isNotEmpty();
      scheduled.removeFirst().run();
      assertThat(meter.liveDomains()).containsExactly(CPU0);
      clock.advanceMillis(5);
      MeterWindow after = meter.open(Set.of(CPU0));
      counter.work(5_000);
      clock.advanceMillis(50);
      Energy e = after.close(7);
      assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
      assertThat(e.measuredUj()).as("idle 10 mW for 50 ms, and the work").hasValue(5_000 + 500);
    } finally {
      meter.close();
    }
  }
}
