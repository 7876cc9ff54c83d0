package org.meshjava.energy;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * How many windows of the whole process, whichever meter holds them, are open on each hardware
 * counter ({@link EnergyChannel#hardware()}). Two meters (stewards that discovered with different
 * options) read one counter through channels of their own, and each splits the energy it reads
 * among its own windows: without a count across them, a serve alone in each meter's books took the
 * whole counter's delta in both, and the figures summed to twice what the counter drew. A ledger
 * splits each segment among this count (never fewer than its own open windows), so the shares of
 * every meter's windows on a counter add up to no more than its delta. An entry lives only while a
 * window is open on its counter. Thread-safe.
 */
final class OpenWindows {
  private static final ConcurrentMap<Object, Integer> OPEN = new ConcurrentHashMap<>();

  private OpenWindows() {}

  /**
   * A window opened on {@code hardware}; returns how many are open there now, this one included.
   */
  static int opened(Object hardware) {
    return OPEN.merge(hardware, 1, Integer::sum);
  }

  /** A window on {@code hardware} is gone. */
  static void closed(Object hardware) {
    OPEN.computeIfPresent(hardware, (h, n) -> n <= 1 ? null : n - 1);
  }

  /** How many windows are open on {@code hardware}, in every meter of the process. */
  static int on(Object hardware) {
    return OPEN.getOrDefault(hardware, 0);
  }
}
