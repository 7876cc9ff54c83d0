package org.meshjava.energy;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * A probe clock over a {@link FakeClock} that can be stepped back ({@link #stepBack}), as a
 * hypervisor or a broken TSC has been seen to step {@link System#nanoTime()}. Test support only.
 */
final class SteppingClock implements ProbeClock {
  private final FakeClock base;
  private volatile long offsetNanos;
  // Reads of nanoTime() left before an armed step (stepBackAfter); negative when none is armed.
  private final AtomicInteger readsBeforeStep = new AtomicInteger(-1);
  private volatile long armedStepNanos;

  SteppingClock(FakeClock base) {
    this.base = base;
  }

  /** From now on, reads {@code nanos} earlier than the base clock did. */
  void stepBack(long nanos) {
    offsetNanos -= nanos;
  }

  /** Steps back {@code nanos} once {@code reads} more reads of the clock have been made. */
  void stepBackAfter(int reads, long nanos) {
    armedStepNanos = nanos;
    readsBeforeStep.set(reads);
  }

  @Override
  public long nanoTime() {
    if (readsBeforeStep.getAndUpdate(n -> n >= 0 ? n - 1 : n) == 0) {
      stepBack(armedStepNanos);
    }
    return base.nanoTime() + offsetNanos;
  }

  @Override
  public void burnUntil(long deadlineNanos) {
    base.burnUntil(deadlineNanos - offsetNanos);
  }

  @Override
  public void idleUntil(long deadlineNanos) {
    base.idleUntil(deadlineNanos - offsetNanos);
  }
}
