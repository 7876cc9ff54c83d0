package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * OtherWaiter must end every wait: a waiter that never parks (a leader re-leading over an empty
 * queue spins runnable) is failed once the overall bound passes, not waited for forever.
 */
class OtherWaiterTest {
  /** Regression: only a parked or blocked waiter was ever failed; a spinning one hung the suite. */
  @Test
  @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void aWaiterSpinningRunnable_failsOnceTheOverallBoundPasses() {
    AtomicBoolean stop = new AtomicBoolean();
    Journal.Pending spinning = pending(stop);
    try {
      assertThatThrownBy(
              () ->
                  OtherWaiter.await(
                      spinning, TimeUnit.SECONDS.toNanos(10), Duration.ofMillis(200).toNanos()))
          .isInstanceOf(AssertionError.class)
          .hasMessageContaining("RUNNABLE");
    } finally {
      stop.set(true);
    }
  }

  @Test
  void aWaiterThatReturns_isReportedWithoutAFailure() throws Exception {
    assertThat(OtherWaiter.await(pending(new AtomicBoolean(true)))).isNull();
  }

  /**
   * A pending record whose await spins, runnable, until {@code stop} is set or it is interrupted.
   */
  private static Journal.Pending pending(AtomicBoolean stop) {
    return new Journal.Pending() {
      @Override
      public JournalRecord record() {
        throw new UnsupportedOperationException("not asked");
      }

      @Override
      public void await() {
        while (!stop.get() && !Thread.currentThread().isInterrupted()) {
          Thread.onSpinWait();
        }
      }
    };
  }
}
