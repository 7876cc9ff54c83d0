package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EnergyDomain;

/**
 * A counter whose every read throws an Error (a driver's fault the meter does not turn into a
 * failed read) costs only its own reads: the timer and the watch still read every other counter of
 * the meter, and the Error still reaches the meter's thread. Fake time, no sleeps.
 */
class ThrowingCounterStarvesNoneTest {
  private static final EnergyDomain CPU0 = EnergyDomain.cpuPackage(0);
  private static final EnergyDomain CPU1 = EnergyDomain.cpuPackage(1);

  private final FakeClock clock = new FakeClock();
  private final TimedCounter faulty = TimedCounter.rapl(CPU0, clock);
  private final TimedCounter healthy = TimedCounter.rapl(CPU1, clock);
  private final AtomicInteger healthyReads = new AtomicInteger();
  private CounterMeter meter;

  @AfterEach
  void closeMeter() {
    if (meter != null) {
      meter.close();
    }
  }

  /** Both counters probed live, then every read of package 0's throws and package 1's counts. */
  private void liveThenFaulty() {
    meter = ProbedMeter.unprobed(clock, r -> {}, faulty, healthy);
    meter.probeNow();
    assertThat(meter.liveDomains()).containsExactlyInAnyOrder(CPU0, CPU1);
    faulty.onRead(
        () -> {
          throw new InternalError("driver fault");
        });
    healthy.onRead(healthyReads::incrementAndGet);
  }

  @Test
  void theTimersRead_stillReadsTheOtherCounters() {
    liveThenFaulty();
    clock.advanceMillis(10);
    assertThatThrownBy(meter::pollCounters).isInstanceOf(InternalError.class);
    assertThat(healthyReads).hasValue(1);
  }

  @Test
  void theWatchsRead_stillReadsTheOtherCounters() {
    liveThenFaulty();
    faulty.onRead(() -> {});
    MeterWindow w = meter.open(Set.of(CPU0, CPU1));
    int afterOpen = healthyReads.get();
    faulty.onRead(
        () -> {
          throw new InternalError("driver fault");
        });
    clock.advanceMillis(1);
    assertThatThrownBy(meter::watchOpenWindows).isInstanceOf(InternalError.class);
    assertThat(healthyReads).hasValue(afterOpen + 1);
    faulty.onRead(() -> {});
    w.close(1);
  }
}
