package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.meshjava.core.Energy;
import org.meshjava.core.EnergyDomain;

/**
 * A window across a spell in which the counter went unread longer than it can go without hiding a
 * wrap is no reading (§3.3), whatever the origin of the monotonic clock: {@link System#nanoTime()}
 * promises none, and its values may be negative.
 */
class ReadGapClockOriginTest {
  private static final EnergyDomain CPU0 = EnergyDomain.cpuPackage(0);
  private static final long MAX_READ_GAP_NANOS = 100_000_000L;

  /** A counter drawing 1 mW continuously, which must be read at least every 100 ms. */
  private static EnergyChannel counter(JumpingClock clock, long origin) {
    return new EnergyChannel() {
      @Override
      public String name() {
        return "gap";
      }

      @Override
      public EnergyDomain domain() {
        return CPU0;
      }

      @Override
      public long readTotalUj() {
        return (clock.nanoTime() - origin) / 1_000;
      }

      @Override
      public long maxReadGapNanos() {
        return MAX_READ_GAP_NANOS;
      }
    };
  }

  /** A window on a live counter left unread for twice its read gap. */
  private static Energy windowAcrossAReadGap(long origin) {
    JumpingClock clock = new JumpingClock(origin);
    List<Runnable> scheduled = new ArrayList<>();
    CounterMeter meter = ProbedMeter.overPackageZero(counter(clock, origin), clock, scheduled::add);
    MeterWindow w = meter.open(Set.of(CPU0));
    clock.burnUntil(clock.nanoTime() + 2 * MAX_READ_GAP_NANOS);
    return w.close(5);
  }

  @Test
  void aWindowAcrossAReadGap_isNoReading_onAClockWithAPositiveOrigin() {
    assertThat(windowAcrossAReadGap(1_000_000_000L)).isEqualTo(Energy.estimated(5));
  }

  /**
   * Regression: the last read's time started at 0 and only ever moved forward, so while the clock
   * read negative it stayed 0, no gap looked long, and a window across one was graded a hardware
   * reading.
   */
  @Test
  void aWindowAcrossAReadGap_isNoReading_onAClockWithANegativeOrigin() {
    assertThat(windowAcrossAReadGap(-10_000_000_000L)).isEqualTo(Energy.estimated(5));
  }
}
