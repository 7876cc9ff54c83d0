package org.meshjava.energy;

/**
 * A probe clock that jumps instead of burning, from any origin: {@link System#nanoTime()} promises
 * none, and its values may be negative, which {@link FakeClock} (fixed at 1 s) never shows.
 */
final class JumpingClock implements ProbeClock {
  private long now;

  JumpingClock(long origin) {
    now = origin;
  }

  @Override
  public long nanoTime() {
    return now;
  }

  @Override
  public void burnUntil(long deadlineNanos) {
    now = Math.max(now, deadlineNanos);
  }

  @Override
  public void idleUntil(long deadlineNanos) {
    burnUntil(deadlineNanos);
  }
}
