package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A discovery whose thread is interrupted (a start being cancelled) must stop retrying: the real
 * clock's wait returns at once on an interrupted thread, and the retry loop then called the failing
 * function back to back until the budget's 2 s had passed, hammering a driver that had just said it
 * was not ready.
 */
class MomentaryRetryTest {
  @AfterEach
  void clearInterrupt() {
    boolean unused = Thread.interrupted();
  }

  @Test
  void anInterruptedThread_triesOnce_throwsTheFailure_andKeepsItsInterrupt() {
    MomentaryRetry retry = new MomentaryRetry(ProbeClock.SYSTEM);
    int[] calls = new int[1];
    Thread.currentThread().interrupt();
    assertThatThrownBy(
            () ->
                retry.call(
                    () -> {
                      calls[0]++;
                      throw new CounterException(CounterIssue.READ_FAILED, "not ready");
                    }))
        .isInstanceOf(CounterException.class)
        .hasMessageContaining("not ready");
    assertThat(calls[0]).as("calls of the failing function").isEqualTo(1);
    assertThat(Thread.currentThread().isInterrupted()).isTrue();
  }
}
