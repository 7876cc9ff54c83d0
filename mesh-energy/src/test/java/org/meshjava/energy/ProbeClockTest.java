package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * §3.3 asks that a counter be seen advancing while the probing thread burns CPU: a probe whose
 * thread slept between samples would prove only that the counter moves at idle. The real clock must
 * therefore keep its thread runnable for the whole wait, never parked or sleeping.
 */
class ProbeClockTest {

  /**
   * Windows are aged by this clock (an hour open and a window is taken as lost): it must be the
   * monotonic {@link System#nanoTime()}, never the wall clock, which an operator or NTP may step an
   * hour forward under a young window. The wall clock serves only for the times receipts report.
   */
  @Test
  void systemClock_readsTheMonotonicTimeSource() {
    long before = System.nanoTime();
    long read = ProbeClock.SYSTEM.nanoTime();
    long after = System.nanoTime();

    assertThat(read - before).isNotNegative();
    assertThat(after - read).isNotNegative();
  }

  @Test
  void systemClock_burnsUntilTheDeadline_neverSleeping() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    long[] returnedAt = new long[1];
    long[] deadline = new long[1];
    Thread prober =
        Thread.ofPlatform()
            .start(
                () -> {
                  deadline[0] = ProbeClock.SYSTEM.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
                  started.countDown();
                  ProbeClock.SYSTEM.burnUntil(deadline[0]);
                  returnedAt[0] = ProbeClock.SYSTEM.nanoTime();
                });
    started.await();
    Set<Thread.State> seen = EnumSet.noneOf(Thread.State.class);
    while (prober.isAlive()) {
      Thread.State state = prober.getState();
      if (state != Thread.State.TERMINATED) {
        seen.add(state);
      }
      Thread.sleep(2);
    }
    prober.join();
    assertThat(seen).as("states of the burning thread").containsOnly(Thread.State.RUNNABLE);
    assertThat(returnedAt[0]).isGreaterThanOrEqualTo(deadline[0]);
  }

  /**
   * The probe's settle after its load (CounterMeter) rests on this clock; a meter's close stops a
   * probe in progress by interrupting it, and waits for it. An interrupted rest must therefore end
   * at once, the flag kept for the probe's caller, and not wait out its deadline.
   */
  @Test
  void systemClock_idleUntil_endsWhenInterrupted_keepingTheFlag() throws Exception {
    CountDownLatch resting = new CountDownLatch(1);
    boolean[] flagKept = new boolean[1];
    Thread sleeper =
        Thread.ofPlatform()
            .daemon()
            .start(
                () -> {
                  resting.countDown();
                  ProbeClock.SYSTEM.idleUntil(
                      ProbeClock.SYSTEM.nanoTime() + TimeUnit.HOURS.toNanos(1));
                  flagKept[0] = Thread.currentThread().isInterrupted();
                });
    resting.await();
    while (sleeper.getState() != Thread.State.TIMED_WAITING) {
      assertThat(sleeper.isAlive()).as("rests, parked, until the deadline").isTrue();
      Thread.sleep(2);
    }
    sleeper.interrupt();
    sleeper.join(TimeUnit.SECONDS.toMillis(30));
    assertThat(sleeper.isAlive()).as("an hour's rest, interrupted").isFalse();
    assertThat(flagKept[0]).as("the interrupt flag, for the probe's caller").isTrue();
  }
}
