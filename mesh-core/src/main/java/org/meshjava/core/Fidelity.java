package org.meshjava.core;

/**
 * The ordered fidelity scale of §3.2, from {@code F0} (the coarsest sufficient answer) to {@code
 * F4} (frontier grade). Encoded on the wire as its level, an unsigned integer 0–4.
 */
public enum Fidelity {
  F0,
  F1,
  F2,
  F3,
  F4;

  /** Returns the level, 0–4. */
  public int level() {
    return ordinal();
  }

  /**
   * Returns the fidelity at {@code level}.
   *
   * @throws IllegalArgumentException if the level is not 0–4
   */
  public static Fidelity of(long level) {
    if (level < 0 || level > 4) {
      throw new IllegalArgumentException("fidelity level must be 0-4, got " + level);
    }
    return values()[(int) level];
  }

  /** Returns whether this level is at least {@code floor} (§3.2: ordering is normative). */
  public boolean meets(Fidelity floor) {
    return compareTo(floor) >= 0;
  }
}
