package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EnergyDomain;

/**
 * The watch runs on a meter's own thread, in real time: while a window is open it reads the counter
 * without any serve asking (SPEC.md 40 §4). No timed assertion: it waits, up to a generous
 * deadline, for reads the serve did not make.
 */
class OwnWatchThreadTest {
  private static final EnergyDomain CPU0 = EnergyDomain.cpuPackage(0);

  /**
   * A package drawing 100 W whose counter refreshes every 5 ms of real time; its read numbered
   * {@link #throwAtRead} throws an Error (a driver's fault the meter does not turn into a failed
   * read).
   */
  private static final class RealTimeCounter implements EnergyChannel {
    private final long start = System.nanoTime();
    final AtomicInteger reads = new AtomicInteger();
    final AtomicInteger throwAtRead = new AtomicInteger(Integer.MAX_VALUE);

    @Override
    public String name() {
      return "real-time:" + CPU0;
    }

    @Override
    public EnergyDomain domain() {
      return CPU0;
    }

    @Override
    public long readTotalUj() {
      if (reads.incrementAndGet() == throwAtRead.get()) {
        throw new InternalError("driver fault on the meter's thread");
      }
      return (System.nanoTime() - start) / 5_000_000L * 500_000L;
    }
  }

  @Test
  void openWindow_isReadByTheMeterItself() {
    watchReadsAfter(false);
  }

  // The watch schedules its next read whatever the last one threw: a watch ended there stayed
  // marked running, was never started again, and no long window could be a reading again.
  @Test
  void aWatchReadThrowingAnError_doesNotStopTheWatch() {
    watchReadsAfter(true);
  }

  /**
   * Opens a window on a live counter and waits, up to 30 s, for three reads the serve did not make
   * after the open; with {@code firstThrows}, the watch's first read throws an Error.
   */
  private static void watchReadsAfter(boolean firstThrows) {
    RealTimeCounter counter = new RealTimeCounter();
    try (CounterMeter meter =
        new CounterMeter(
            List.of(counter),
            List.of(),
            LivenessPolicy.standard(),
            Duration.ofMinutes(10),
            Optional.empty(),
            ProbeClock.SYSTEM,
            null)) {
      // A probe in real time on a busy machine may see a lumpy counter; it is not under test here.
      // Ten probes all came back lumpy at a load of 33 on two cores, so it probes until the same
      // generous deadline as the wait below.
      long probeDeadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (meter.liveDomains().isEmpty() && System.nanoTime() < probeDeadline) {
        meter.probeNow();
      }
      assertThat(meter.liveDomains()).as(meter.counters().toString()).containsExactly(CPU0);
      MeterWindow w = meter.open(Set.of(CPU0));
      int afterOpen = counter.reads.get();
      int wanted = afterOpen + 3;
      if (firstThrows) {
        counter.throwAtRead.set(afterOpen + 1);
        wanted++;
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (counter.reads.get() < wanted && System.nanoTime() < deadline) {
        LockSupport.parkNanos(1_000_000L);
      }
      assertThat(counter.reads.get()).isGreaterThanOrEqualTo(wanted);
      w.close(1);
    }
  }
}
