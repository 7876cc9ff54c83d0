package org.meshjava.energy;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/** A probe clock that jumps instead of burning, and tells listeners how far time moved. */
final class FakeClock implements ProbeClock {
  private long now = 1_000_000_000L;
  private final List<LongConsumer> listeners = new ArrayList<>();

  @Override
  public synchronized long nanoTime() {
    return now;
  }

  /**
   * Moves time and tells the listeners under one lock, so no thread sees the new time before the
   * counters driven by it have caught up (a real counter refreshes on its own, never late).
   */
  @Override
  public synchronized void burnUntil(long deadlineNanos) {
    long moved = Math.max(0, deadlineNanos - now);
    now = Math.max(now, deadlineNanos);
    for (LongConsumer l : listeners) {
      l.accept(moved);
    }
  }

  /** Moves time forward, as a serve would. */
  void advanceMillis(long millis) {
    burnUntil(nanoTime() + millis * 1_000_000L);
  }

  /** Calls {@code listener} with the nanoseconds elapsed at every move. */
  synchronized void onAdvance(LongConsumer listener) {
    listeners.add(listener);
  }

  /** Jumps like {@link #burnUntil}: in fake time resting and working take no time either. */
  @Override
  public void idleUntil(long deadlineNanos) {
    burnUntil(deadlineNanos);
  }
}
