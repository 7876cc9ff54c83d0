package org.meshjava.energy;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.LongConsumer;

/**
 * A probe clock that jumps instead of burning, and tells listeners how far time moved.
 *
 * <p>A meter handed to {@link #watch} has its watch run by this clock as the meter's own thread
 * would run it: every time the clock moves, it stops at each moment a watch read falls due (every
 * {@link CounterMeter#watchEveryNanos()}, counted from the first move after a window opened on a
 * live counter, as the meter schedules it at the open), and reads there. So a fake-time test holds
 * its closes to the stall bound (SPEC.md 40 §4) without calling the watch itself, and the watch
 * reads at the same fake moments in every run.
 */
final class FakeClock implements ProbeClock {
  /**
   * Set while a counter's read runs a test's hook on this thread: a watch falling due in a move the
   * hook makes waits for the next move, as the meter's thread would wait for the ledger's monitor
   * that the read holds (it would otherwise read the ledger in the middle of a read).
   */
  private static final ThreadLocal<Boolean> IN_READ = ThreadLocal.withInitial(() -> false);

  private long now = 1_000_000_000L;
  private final List<LongConsumer> listeners = new ArrayList<>();
  private final Object driving = new Object();
  private final List<Watch> watches = new ArrayList<>(); // guarded by driving

  /** One watched meter: whether a watch read is scheduled, and when. Guarded by {@code driving}. */
  private static final class Watch {
    private final CounterMeter meter;
    private boolean scheduled;
    private long dueNanos;

    Watch(CounterMeter meter) {
      this.meter = meter;
    }

    /** Schedules the next read, as the meter does at an open and after each read, if one is due. */
    void arm(long nowNanos) {
      if (scheduled || meter.isClosed()) {
        return;
      }
      OptionalLong every = meter.watchEveryNanos();
      if (every.isPresent()) {
        scheduled = true;
        dueNanos = nowNanos + every.getAsLong();
      }
    }
  }

  @Override
  public synchronized long nanoTime() {
    return now;
  }

  /**
   * Moves time, stopping at each watch read that falls due on the way; with no meter watched, one
   * move.
   */
  @Override
  public void burnUntil(long deadlineNanos) {
    boolean driven;
    synchronized (driving) {
      driven = !watches.isEmpty();
    }
    if (!driven || IN_READ.get()) {
      move(deadlineNanos);
      return;
    }
    synchronized (driving) {
      while (true) {
        long next = deadlineNanos;
        long at = nanoTime();
        for (Watch w : watches) {
          w.arm(at);
          if (w.scheduled) {
            next = Math.min(next, w.dueNanos);
          }
        }
        move(next);
        at = nanoTime();
        for (Watch w : watches) {
          if (w.scheduled && w.dueNanos <= at) {
            w.scheduled = false;
            if (!w.meter.isClosed()) {
              w.meter.watchOpenWindows();
            }
            w.arm(at);
          }
        }
        if (at >= deadlineNanos) {
          return;
        }
      }
    }
  }

  /**
   * Moves time and tells the listeners under one lock, so no thread sees the new time before the
   * counters driven by it have caught up (a real counter refreshes on its own, never late).
   */
  private synchronized void move(long deadlineNanos) {
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

  /**
   * Runs {@code meter}'s watch from now on as its own thread would, and holds its closes to the
   * stall bound as that thread's meter is ({@link CounterMeter#watchedByCaller()}). Returns it.
   */
  CounterMeter watch(CounterMeter meter) {
    meter.watchedByCaller();
    synchronized (driving) {
      watches.add(new Watch(meter));
    }
    return meter;
  }

  /** Watches the meter {@code found} kept, when it is a {@link CounterMeter}; returns it. */
  MeterDiscovery watch(MeterDiscovery found) {
    if (found.meter() instanceof CounterMeter meter) {
      watch(meter);
    }
    return found;
  }

  /**
   * Runs {@code hook} as part of a counter's read: a move that it makes runs no watch read (the
   * meter's thread would be waiting for the ledger the read holds); the next move catches up.
   */
  static void duringRead(Runnable hook) {
    if (IN_READ.get()) {
      hook.run();
      return;
    }
    IN_READ.set(true);
    try {
      hook.run();
    } finally {
      IN_READ.set(false);
    }
  }

  /** Jumps like {@link #burnUntil}: in fake time resting and working take no time either. */
  @Override
  public void idleUntil(long deadlineNanos) {
    burnUntil(deadlineNanos);
  }
}
