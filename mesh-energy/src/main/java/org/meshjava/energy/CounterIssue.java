package org.meshjava.energy;

/**
 * Why an energy counter is not, or is no longer, trusted for a hardware-graded figure (§3.3).
 * Callers match on these, never on the detail text.
 */
public enum CounterIssue {
  /**
   * The counter does not exist here: no powercap tree, a zone without {@code energy_uj} (or its
   * {@code name} or {@code max_energy_range_uj}), a path that reaches no file (a symbolic link
   * loop, a file where a folder should be), a device gone (an open answered ENODEV or ENXIO), no
   * GPU, no such channel.
   */
  NOT_PRESENT,
  /**
   * The counter exists but this process may not read it (RAPL {@code energy_uj} is root-only on
   * most distributions since 2020; SELinux, AppArmor or a seccomp filter may refuse it too, which
   * the detail says).
   */
  UNREADABLE,
  /** The native library could not be loaded from the configured path. */
  LIBRARY_MISSING,
  /** The native library answered with an error code; the detail carries its own text. */
  NATIVE_ERROR,
  /**
   * This module may not call native code (the JVM runs with {@code --illegal-native-access=deny}
   * and without {@code --enable-native-access} for it), so the native counter cannot be bound.
   */
  NATIVE_ACCESS_DENIED,
  /**
   * The counter reads a board shared with other tenants (an NVIDIA GPU in MIG mode, or a MIG
   * instance), so its energy is not this process's.
   */
  SHARED_BOARD,
  /** The counter belongs to another operating system (IOReport off macOS). */
  UNSUPPORTED_PLATFORM,
  /**
   * The counter reads something that is not one of our domains (RAPL {@code psys}, {@code core}).
   */
  NOT_A_DOMAIN,
  /** The counter never advanced during the liveness probe. */
  FROZEN,
  /** The counter advanced, but in lumps: it missed more than one of five sample intervals. */
  LUMPY,
  /** The counter advanced in fewer than five sample intervals. */
  TOO_FEW_ADVANCES,
  /** The probe observed the counter for less than the minimum span (300 ms). */
  PROBE_TOO_SHORT,
  /**
   * The counter was live but then did not change for five of its update periods: a domain always
   * draws power, so a live counter changes every period.
   */
  STALLED,
  /** Reading the counter failed after it had been found live. */
  READ_FAILED,
  /**
   * The counter went backwards by more than a wrap can explain, e.g. a driver reload, or moved
   * further than its domain can draw in the time since its last read (a RAPL counter restarted by
   * suspend to RAM or a package reset reads back like a wrap).
   */
  COUNTER_RESET,
  /** A re-probe of the counter is in progress; figures are not hardware-graded meanwhile. */
  PROBING
}
