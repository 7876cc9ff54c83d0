package org.meshjava.energy;

import java.util.Objects;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * The real probe clock ({@link ProbeClock#SYSTEM}) over a time source and a way to park, both
 * injectable so that a step back of the time source can be tested without one.
 *
 * <p>A wait counts only the time the source moved forward while it lasted. A step back during the
 * wait (a time source that is not monotonic after all: a hypervisor's, a clock source the kernel
 * switched) is then not waited out: measured against its deadline alone, a wait the clock stepped
 * back an hour in would burn a core, or hold a probe's disturbance of every window of the process,
 * for the hour. The wait lasts its own length, plus at most the stretch of it under way when the
 * step came; the caller, reading the clock next, sees the step and deals with it ({@link
 * LivenessProbe} starts the probe over).
 *
 * <p>Thread-safe: it keeps no state between calls.
 */
final class SystemProbeClock implements ProbeClock {
  private final LongSupplier time;
  private final LongConsumer park;

  /**
   * @param time the time source in nanoseconds, read for {@link #nanoTime()} and by the waits
   * @param park parks the calling thread for about the nanoseconds given, returning early when it
   *     is interrupted (as {@link java.util.concurrent.locks.LockSupport#parkNanos(long)})
   */
  SystemProbeClock(LongSupplier time, LongConsumer park) {
    this.time = Objects.requireNonNull(time, "time");
    this.park = Objects.requireNonNull(park, "park");
  }

  @Override
  public long nanoTime() {
    return time.getAsLong();
  }

  @Override
  public void burnUntil(long deadlineNanos) {
    long x = deadlineNanos;
    long last = time.getAsLong();
    long left = deadlineNanos - last;
    while (left > 0) {
      for (int i = 0; i < 1_000; i++) {
        // xorshift keeps the core busy; the result feeds the loop so it is not elided
        x ^= x << 13;
        x ^= x >>> 7;
        x ^= x << 17;
      }
      if (x == 42) {
        Thread.onSpinWait();
      }
      long now = time.getAsLong();
      left -= forward(last, now);
      last = now;
    }
  }

  @Override
  public void idleUntil(long deadlineNanos) {
    long last = time.getAsLong();
    long left = deadlineNanos - last;
    while (left > 0 && !Thread.currentThread().isInterrupted()) {
      park.accept(left);
      long now = time.getAsLong();
      left -= forward(last, now);
      last = now;
    }
  }

  /** How far the source moved forward from {@code last} to {@code now}; none for a step back. */
  private static long forward(long last, long now) {
    return Math.max(0, now - last);
  }
}
