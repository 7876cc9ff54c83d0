package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link InFlightServes} on its own: what {@code close} counts as still in flight (the figure
 * {@link Steward#close()} warns the operator with), that an interrupt ends its wait and stays set,
 * and that a serve admitted and ended on the closing thread, or still running there, is never
 * waited for. A close that waits when it should not would hang here, so every wait that must end
 * runs under the class's {@code @Timeout}.
 */
@Timeout(60)
class InFlightServesTest {
  final InFlightServes serves = new InFlightServes();
  final ExecutorService threads = Executors.newCachedThreadPool();
  final CountDownLatch entered = new CountDownLatch(1);
  final CountDownLatch leave = new CountDownLatch(1);

  @AfterEach
  void stop() {
    leave.countDown();
    threads.shutdownNow();
  }

  /** A serve on another thread, admitted and held until {@link #leave}. */
  Future<Boolean> heldServe() throws InterruptedException {
    Future<Boolean> f =
        threads.submit(
            () -> {
              boolean admitted = serves.enter();
              entered.countDown();
              leave.await();
              if (admitted) {
                serves.exit();
              }
              return admitted;
            });
    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
    return f;
  }

  @Test
  void close_withNothingInFlight_returnsZeroWithoutWaitingOutItsGrace() {
    assertThat(serves.close(InFlightServes.LONGEST_GRACE)).isZero();
  }

  @Test
  void close_afterServesEndedOnItsOwnThread_returnsZeroWithoutWaitingOutItsGrace() {
    assertThat(serves.enter()).isTrue();
    serves.exit();
    assertThat(serves.enter()).isTrue();
    serves.exit();

    assertThat(serves.close(InFlightServes.LONGEST_GRACE)).isZero();
  }

  @Test
  void close_fromInsideItsOwnServe_doesNotWaitForIt_butCountsIt() {
    assertThat(serves.enter()).isTrue();

    assertThat(serves.close(InFlightServes.LONGEST_GRACE)).isOne();
  }

  @Test
  void close_whoseGraceRunsOut_countsTheServeStillInFlight() throws Exception {
    Future<Boolean> other = heldServe();

    assertThat(serves.close(Duration.ofMillis(100))).isOne();

    leave.countDown();
    assertThat(other.get(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void close_waitsForAnotherThreadsServe_andCountsNoneOnceItEnds() throws Exception {
    Future<Boolean> other = heldServe();
    Future<Integer> closing = threads.submit(() -> serves.close(InFlightServes.LONGEST_GRACE));
    // Admission is refused once closing has begun: the serve below must wait for the other.
    while (serves.enter()) {
      serves.exit();
      Thread.onSpinWait();
    }
    assertThat(closing).isNotDone();

    leave.countDown();

    assertThat(closing.get(30, TimeUnit.SECONDS)).isZero();
    assertThat(other.get(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void close_interrupted_stopsWaiting_keepsTheInterrupt_andCountsTheServeInFlight()
      throws Exception {
    Future<Boolean> other = heldServe();
    Thread.currentThread().interrupt();
    int left;
    boolean stillInterrupted;
    try {
      left = serves.close(InFlightServes.LONGEST_GRACE);
    } finally {
      stillInterrupted = Thread.interrupted(); // clears it, for JUnit's sake
    }

    assertThat(left).isOne();
    assertThat(stillInterrupted).as("the interrupt is kept set").isTrue();
    leave.countDown();
    assertThat(other.get(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void enter_onceClosingHasBegun_isRefused_andCountsNothing() {
    assertThat(serves.close(Duration.ZERO)).isZero();

    assertThat(serves.enter()).isFalse();
    assertThat(serves.close(Duration.ZERO)).isZero();
  }
}
