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
 * Readings no domain can produce, whatever counter publishes them: a total that leaps further than
 * the domain could draw between two reads, a total that runs backwards, and a counter whose read
 * throws something unchecked. None of them may be graded a hardware reading (§3.3), none may escape
 * the meter as an exception, and none may leave a window behind on the domain's books.
 */
class ImplausibleReadingTest {
  private static final EnergyDomain CPU0 = EnergyDomain.cpuPackage(0);

  /** Long enough for a 1 ms counter to resolve. */
  private static final long SERVE_MS = 50;

  private final FakeClock clock = new FakeClock();
  private final List<Runnable> scheduled = new ArrayList<>();

  /**
   * A counter over a {@link TimedCounter} whose published total the test can shift, as a driver
   * that republishes garbage would.
   */
  private static final class Shifted extends ForwardingChannel {
    private volatile long shiftUj;

    Shifted(TimedCounter counter) {
      super(counter);
    }

    void shift(long uj) {
      shiftUj += uj;
    }

    @Override
    public long readTotalUj() throws CounterException {
      return super.readTotalUj() + shiftUj;
    }
  }

  private CounterMeter meter(EnergyChannel channel) {
    return clock.watch(ProbedMeter.overPackageZero(channel, clock, scheduled::add));
  }

  private CounterStatus status(CounterMeter meter) {
    return meter.counters().getFirst();
  }

  @Test
  void close_whenTotalLeapsFurtherThanTheDomainCanDraw_isNotAReading_andCountsOnFromThere() {
    TimedCounter cpu = TimedCounter.rapl(CPU0, clock);
    CounterMeter meter = meter(cpu);
    MeterWindow w = meter.open(Set.of(CPU0));
    // 100 kJ in 50 ms is 2 MW: no package draws that, so it is a fault, not energy.
    cpu.work(100_000_000_000L);
    clock.advanceMillis(SERVE_MS);
    assertThat(w.close(7)).isEqualTo(Energy.estimated(7));
    assertThat(status(meter).issue()).contains(CounterIssue.COUNTER_RESET);
    assertThat(status(meter).detail()).contains("more than").contains("W can draw");
    assertThat(scheduled).as("a re-probe was scheduled").hasSize(1);
    scheduled.removeFirst().run();
    assertThat(meter.liveDomains()).containsExactly(CPU0);
    MeterWindow after = meter.open(Set.of(CPU0));
    cpu.work(5_000);
    clock.advanceMillis(SERVE_MS);
    Energy e = after.close(7);
    assertThat(e.provenance()).isEqualTo(Provenance.HwShunt);
    assertThat(e.measuredUj()).as("idle 10 mW for 50 ms, and the work").hasValue(5_000 + 500);
  }

  @Test
  void close_whenTotalRunsBackwards_isEstimator_notAnException() {
    Shifted cpu = new Shifted(TimedCounter.rapl(CPU0, clock));
    CounterMeter meter = meter(cpu);
    MeterWindow w = meter.open(Set.of(CPU0));
    clock.advanceMillis(SERVE_MS);
    cpu.shift(-1_000_000);
    assertThat(w.close(7)).isEqualTo(Energy.estimated(7));
    assertThat(status(meter).issue()).contains(CounterIssue.COUNTER_RESET);
    assertThat(status(meter).detail()).contains("backwards");
  }

  @Test
  void overlappingWindows_whenTotalRunsBackwards_neitherThrowsNorIsModelBased() {
    Shifted cpu = new Shifted(TimedCounter.rapl(CPU0, clock));
    CounterMeter meter = meter(cpu);
    MeterWindow first = meter.open(Set.of(CPU0));
    MeterWindow second = meter.open(Set.of(CPU0));
    clock.advanceMillis(SERVE_MS);
    cpu.shift(-1_000_000);
    assertThat(first.close(7)).isEqualTo(Energy.estimated(7));
    assertThat(second.close(9)).isEqualTo(Energy.estimated(9));
  }

  @Test
  void sixtyFourOverlappingWindows_acrossALeap_areAllEstimator_noneGetsAShareOfIt() {
    TimedCounter cpu = TimedCounter.rapl(CPU0, clock);
    CounterMeter meter = meter(cpu);
    List<MeterWindow> windows = new ArrayList<>();
    for (int i = 0; i < 64; i++) {
      windows.add(meter.open(Set.of(CPU0)));
      clock.advanceMillis(1);
    }
    cpu.work(100_000_000_000L);
    clock.advanceMillis(SERVE_MS);
    for (MeterWindow w : windows) {
      assertThat(w.close(7)).isEqualTo(Energy.estimated(7));
    }
    assertThat(status(meter).issue()).contains(CounterIssue.COUNTER_RESET);
  }

  @Test
  void close_whenTheReadThrowsUnchecked_isEstimator_andTheWindowLeavesTheBooks() {
    TimedCounter cpu = TimedCounter.rapl(CPU0, clock);
    CounterMeter meter = meter(cpu);
    MeterWindow w = meter.open(Set.of(CPU0));
    clock.advanceMillis(SERVE_MS);
    cpu.onRead(
        () -> {
          throw new ArithmeticException("long overflow");
        });
    assertThat(w.close(7)).isEqualTo(Energy.estimated(7));
    assertThat(status(meter).issue()).contains(CounterIssue.READ_FAILED);
    assertThat(status(meter).detail()).contains("ArithmeticException").contains("long overflow");
    cpu.onRead(() -> {});
    scheduled.removeFirst().run();
    assertThat(meter.liveDomains()).containsExactly(CPU0);
    // Had the failed close left its window registered, this one would be overlapped for good.
    MeterWindow alone = meter.open(Set.of(CPU0));
    clock.advanceMillis(SERVE_MS);
    assertThat(alone.close(7).provenance()).isEqualTo(Provenance.HwShunt);
  }

  @Test
  void open_whenTheReadThrowsUnchecked_stillRegistersTheWindow_andGradesItEstimator() {
    TimedCounter cpu = TimedCounter.rapl(CPU0, clock);
    CounterMeter meter = meter(cpu);
    cpu.onRead(
        () -> {
          throw new IllegalStateException("driver gone");
        });
    MeterWindow w = meter.open(Set.of(CPU0));
    cpu.onRead(() -> {});
    clock.advanceMillis(SERVE_MS);
    assertThat(w.close(7)).isEqualTo(Energy.estimated(7));
    assertThat(status(meter).issue()).contains(CounterIssue.READ_FAILED);
  }
}
