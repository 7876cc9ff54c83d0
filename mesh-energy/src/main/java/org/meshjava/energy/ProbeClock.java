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

  /**
   * Keeps the calling thread busy until {@link #nanoTime()} reaches {@code deadlineNanos}, or,
   * should the clock step back meanwhile, for about as long as was left of the wait: the step is
   * not waited out, and the caller sees it at its next reading.
   */
  void burnUntil(long deadlineNanos);

  /**
   * Lets the calling thread rest, burning nothing, until {@link #nanoTime()} reaches {@code
   * deadlineNanos} (a step back of the clock is not waited out, as for {@link #burnUntil}); returns
   * early, the interrupt flag still set, when the thread is interrupted.
   */
  void idleUntil(long deadlineNanos);

  /**
   * The real clock: {@link System#nanoTime()}, a busy arithmetic loop, and parking; each wait
   * counts only the time that moved forward during it ({@link SystemProbeClock}).
   */
  ProbeClock SYSTEM = new SystemProbeClock(System::nanoTime, LockSupport::parkNanos);
}
