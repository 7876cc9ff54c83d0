package org.meshjava.energy;

import java.util.concurrent.locks.LockSupport;

/**
 * Time for liveness probes, injectable so the rule can be tested on scripted samples without
 * waiting. The system clock burns CPU between samples, because §3.3 asks that the counter be seen
 * advancing while the probing thread does work, not while it sleeps.
 */
interface ProbeClock {

  /** A monotonic time in nanoseconds. */
  long nanoTime();

  /** Keeps the calling thread busy until {@link #nanoTime()} reaches {@code deadlineNanos}. */
  void burnUntil(long deadlineNanos);

  /**
   * Lets the calling thread rest, burning nothing, until {@link #nanoTime()} reaches {@code
   * deadlineNanos}; returns early, the interrupt flag still set, when the thread is interrupted.
   */
  void idleUntil(long deadlineNanos);

  /** The real clock: {@link System#nanoTime()}, a busy arithmetic loop, and parking. */
  ProbeClock SYSTEM =
      new ProbeClock() {
        @Override
        public long nanoTime() {
          return System.nanoTime();
        }

        @Override
        public void burnUntil(long deadlineNanos) {
          long x = deadlineNanos;
          while (System.nanoTime() < deadlineNanos) {
            for (int i = 0; i < 1_000; i++) {
              // xorshift keeps the core busy; the result feeds the loop so it is not elided
              x ^= x << 13;
              x ^= x >>> 7;
              x ^= x << 17;
            }
            if (x == 42) {
              Thread.onSpinWait();
            }
          }
        }

        @Override
        public void idleUntil(long deadlineNanos) {
          long left;
          while ((left = deadlineNanos - System.nanoTime()) > 0
              && !Thread.currentThread().isInterrupted()) {
            LockSupport.parkNanos(left);
          }
        }
      };
}
