package org.meshjava.energy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * The real probe clock's waits, over a time source that steps back an hour in the middle of one:
 * the wait lasts about its own length, not the step besides (a probe burning a core for the hour,
 * every window of the process disturbed, no reading, all the while). Scripted time, no sleeps.
 */
class SystemProbeClockStepTest {
  private static final long HOUR_NANOS = TimeUnit.HOURS.toNanos(1);

  /**
   * Moves {@code tickNanos} forward at each read, and steps back {@code stepNanos} at read {@code
   * stepAt}; fails a wait that reads it more than {@link #MOST_READS} times (one waiting out the
   * step would read it billions of times).
   */
  private static final class SteppingSource implements LongSupplier {
    static final int MOST_READS = 100_000;
    private final long tickNanos;
    private final int stepAt;
    private final long stepNanos;
    private long now = 1_000_000_000L;
    int reads;

    SteppingSource(long tickNanos, int stepAt, long stepNanos) {
      this.tickNanos = tickNanos;
      this.stepAt = stepAt;
      this.stepNanos = stepNanos;
    }

    @Override
    public long getAsLong() {
      if (++reads > MOST_READS) {
        throw new AssertionError(
            "the wait still went on after " + MOST_READS + " reads of the clock");
      }
      if (reads == stepAt) {
        now -= stepNanos;
      }
      now += tickNanos;
      return now;
    }

    /** Time as a parked thread sees it: the park lasts what it was asked. */
    void parked(long nanos) {
      now += nanos;
    }
  }

  @Test
  void aStepBackDuringABurn_isNotWaitedOut() {
    // A read every microsecond of the burn; the step at the tenth.
    SteppingSource source = new SteppingSource(1_000, 10, HOUR_NANOS);
    SystemProbeClock clock = new SystemProbeClock(source, n -> {});
    long start = clock.nanoTime();
    clock.burnUntil(start + TimeUnit.MILLISECONDS.toNanos(1));
    assertThat(source.reads)
        .as("reads of the clock a 1 ms burn took, at one a microsecond, stepped back an hour")
        .isBetween(1_000, 1_100);
  }

  @Test
  void aStepBackDuringARest_isNotWaitedOut() {
    SteppingSource source = new SteppingSource(0, 3, HOUR_NANOS);
    long[] parkedNanos = new long[1];
    SystemProbeClock clock =
        new SystemProbeClock(
            source,
            n -> {
              parkedNanos[0] += n;
              source.parked(n);
            });
    long tenMillis = TimeUnit.MILLISECONDS.toNanos(10);
    clock.idleUntil(clock.nanoTime() + tenMillis);
    assertThat(parkedNanos[0])
        .as("time parked in a 10 ms rest, the clock stepped back an hour during it")
        .isBetween(tenMillis, 2 * tenMillis);
  }

  @Test
  void withoutAStep_eachWaitEndsAtItsDeadline() {
    SteppingSource source = new SteppingSource(1_000, -1, 0);
    SystemProbeClock clock = new SystemProbeClock(source, source::parked);
    long deadline = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1);
    clock.burnUntil(deadline);
    assertThat(clock.nanoTime()).isGreaterThanOrEqualTo(deadline);
    deadline = clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5);
    clock.idleUntil(deadline);
    assertThat(clock.nanoTime()).isGreaterThanOrEqualTo(deadline);
  }
}
