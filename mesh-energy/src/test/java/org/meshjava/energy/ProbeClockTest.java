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
}
