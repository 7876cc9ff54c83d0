package org.meshjava.energy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The windows of the whole process, whichever meter holds them, open on each hardware counter
 * ({@link EnergyChannel#hardware()}). Two meters (stewards that discovered with different options)
 * read one counter through channels of their own, and each splits the energy it reads among its own
 * windows: without a count across them, a serve alone in each meter's books took the whole
 * counter's delta in both, and the figures summed to twice what the counter drew. A ledger splits
 * each segment among this count (never fewer than its own open windows), so the shares of every
 * meter's windows on a counter add up to no more than its delta. An entry lives only while a window
 * is open on its counter.
 *
 * <p>Each window is counted with its age ({@link Counted}), so a window open longer than {@link
 * DomainLedger#STALE_WINDOW_NANOS} is counted out at the next read of its counter by any meter of
 * the process ({@link #expireStale}), whether or not the meter that opened it is still open: a
 * window lost in a meter since closed would otherwise be counted for the life of the process, and
 * every later window on the counter overlapped (§3.3).
 *
 * <p>Thread-safe. The lock is a leaf: no clock, ledger or logger is called while it is held.
 */
final class OpenWindows {
  private static final Object LOCK = new Object();
  // Guarded by LOCK.
  private static final Map<Object, List<Counted>> OPEN = new HashMap<>();

  private OpenWindows() {}

  /**
   * One window's place in the count of its counter. Its age is measured by the clock of the meter
   * that opened it, so a meter closed since can still have it aged.
   */
  static final class Counted {
    private final Object hardware;
    private final ProbeClock clock;
    private final int openOnCounter;
    // Guarded by LOCK. Brought back to a reading earlier than it (a step back of the clock): a
    // window lost before the step is aged from the step, never from a time still ahead.
    private long openedNanos;
    // Guarded by LOCK.
    private boolean in = true;

    private Counted(Object hardware, ProbeClock clock, long openedNanos, int openOnCounter) {
      this.hardware = hardware;
      this.clock = clock;
      this.openedNanos = openedNanos;
      this.openOnCounter = openOnCounter;
    }

    /** How many windows were open on the counter when this one was counted in, itself included. */
    int openOnCounter() {
      return openOnCounter;
    }

    /** Whether this window is still counted (neither closed nor taken as gone). */
    boolean isIn() {
      synchronized (LOCK) {
        return in;
      }
    }

    /**
     * How long this window has been open at {@code nowNanos} of its own clock; an opening later
     * than {@code nowNanos} (the clock stepped back) is brought back to it first.
     */
    long ageNanos(long nowNanos) {
      synchronized (LOCK) {
        openedNanos = Math.min(openedNanos, nowNanos);
        return nowNanos - openedNanos;
      }
    }
  }

  /**
   * A window opened on {@code hardware} at {@code nowNanos} of {@code clock}; returns its place in
   * the count, which knows how many are open there now, this one included.
   */
  static Counted opened(Object hardware, ProbeClock clock, long nowNanos) {
    Objects.requireNonNull(hardware, "hardware");
    Objects.requireNonNull(clock, "clock");
    synchronized (LOCK) {
      List<Counted> on = OPEN.computeIfAbsent(hardware, h -> new ArrayList<>());
      Counted c = new Counted(hardware, clock, nowNanos, on.size() + 1);
      on.add(c);
      return c;
    }
  }

  /** {@code window} is gone; returns whether it was still counted (false the second time). */
  static boolean closed(Counted window) {
    synchronized (LOCK) {
      if (!window.in) {
        return false;
      }
      window.in = false;
      List<Counted> on = OPEN.get(window.hardware);
      if (on != null) {
        on.remove(window);
        if (on.isEmpty()) {
          OPEN.remove(window.hardware);
        }
      }
      return true;
    }
  }

  /** How many windows are open on {@code hardware}, in every meter of the process. */
  static int on(Object hardware) {
    synchronized (LOCK) {
      List<Counted> on = OPEN.get(hardware);
      return on == null ? 0 : on.size();
    }
  }

  /**
   * Counts out every window on {@code hardware} open longer than {@link
   * DomainLedger#STALE_WINDOW_NANOS} by its own meter's clock, and returns them with their ages
   * (for the caller's log line). A window on {@code clock} is aged at {@code nowNanos}, the
   * caller's own reading of it: read again, a window of the caller's crossing the hour between the
   * two readings would be counted out here as another meter's. Every other clock is read outside
   * the lock.
   */
  static List<Expired> expireStale(Object hardware, ProbeClock clock, long nowNanos) {
    List<Counted> on;
    synchronized (LOCK) {
      List<Counted> now = OPEN.get(hardware);
      if (now == null) {
        return List.of();
      }
      on = List.copyOf(now);
    }
    List<Expired> expired = new ArrayList<>();
    for (Counted c : on) {
      long age = c.ageNanos(c.clock == clock ? nowNanos : c.clock.nanoTime());
      if (age >= DomainLedger.STALE_WINDOW_NANOS && closed(c)) {
        expired.add(new Expired(age));
      }
    }
    return expired;
  }

  /** A window counted out for its age, {@code ageNanos} by its own meter's clock. */
  record Expired(long ageNanos) {}
}
