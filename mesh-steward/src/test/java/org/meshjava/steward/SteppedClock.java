package org.meshjava.steward;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Objects;

/**
 * A wall clock a test moves by hand, backwards as readily as forwards, the way NTP corrections, a
 * VM migration or an operator fixing a wrong boot-time clock move a real one.
 */
final class SteppedClock implements InstantSource {
  private volatile Instant now;

  SteppedClock(Instant start) {
    now = Objects.requireNonNull(start, "start");
  }

  @Override
  public Instant instant() {
    return now;
  }

  /** Sets the clock to {@code t}, whichever side of the current reading it lies. */
  void set(Instant t) {
    now = Objects.requireNonNull(t, "t");
  }

  /** Moves the clock by {@code by}; a negative duration steps it back. */
  void step(Duration by) {
    now = now.plus(by);
  }
}
