package org.meshjava.journal;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * A second waiter of a group commit, awaiting its record on a thread of its own, for tests that
 * check what a waiter other than the leader is told. It runs on a new platform thread, not on the
 * common fork-join pool: on a two-core machine that pool has one worker, and a task any earlier
 * test left on it kept this one from starting at all (a 30 s timeout with the waiter never run).
 * The wait ends on progress, not on a fixed time: only a waiter found parked or blocked for {@link
 * #STALLED_NANOS} without a break fails the test; one that is runnable, however slow a loaded
 * machine makes it, is waited for, up to {@link #LONGEST_NANOS} in all. That ceiling is what ends a
 * waiter spinning runnable: a written batch left uncounted sends its other waiter to lead again
 * over an empty queue, round after round, never parked, and without a ceiling the test, and the
 * suite, never ended. The thread is a daemon, so a waiter that hangs ends with the test JVM.
 */
final class OtherWaiter {
  /** How long the waiter may sit parked or blocked before the wait is a hang. */
  static final long STALLED_NANOS = TimeUnit.SECONDS.toNanos(10);

  /** How long the waiter may take in all, runnable or not, before the wait is a hang. */
  static final long LONGEST_NANOS = TimeUnit.SECONDS.toNanos(60);

  private OtherWaiter() {}

  /**
   * Awaits {@code pending} on a new thread and returns what its await threw, or null if it
   * returned.
   *
   * @throws AssertionError if the await waited without progress for {@link #STALLED_NANOS}, or had
   *     not returned after {@link #LONGEST_NANOS}
   */
  static @Nullable Throwable await(Journal.Pending pending) throws InterruptedException {
    return await(pending, STALLED_NANOS, LONGEST_NANOS);
  }

  /** {@link #await(Journal.Pending)} with the two bounds given (OtherWaiterTest). */
  static @Nullable Throwable await(Journal.Pending pending, long stalledNanos, long longestNanos)
      throws InterruptedException {
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread waiter =
        Thread.ofPlatform()
            .name("other-waiter")
            .daemon()
            .start(
                () -> {
                  try {
                    pending.await();
                  } catch (Throwable t) {
                    thrown.set(t);
                  }
                });
    long started = System.nanoTime();
    long stalledSince = started;
    while (true) {
      waiter.join(20);
      if (!waiter.isAlive()) {
        return thrown.get();
      }
      Thread.State state = waiter.getState();
      if (state == Thread.State.RUNNABLE || state == Thread.State.NEW) {
        stalledSince = System.nanoTime();
      } else if (System.nanoTime() - stalledSince > stalledNanos) {
        throw hung(waiter, state + " without progress for " + millis(stalledNanos));
      }
      if (System.nanoTime() - started > longestNanos) {
        throw hung(waiter, "waiting, " + state + " now, for " + millis(longestNanos));
      }
    }
  }

  private static AssertionError hung(Thread waiter, String how) {
    StackTraceElement[] stack = waiter.getStackTrace();
    waiter.interrupt();
    return new AssertionError(
        "the other waiter has been " + how + ", at " + Arrays.toString(stack));
  }

  private static String millis(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos) + " ms";
  }
}
