package org.meshjava.core;

/**
 * The ordered fidelity scale of §3.2, from {@code F0} (the coarsest sufficient answer) to {@code
 * F4} (frontier grade). Encoded on the wire as its level, an unsigned integer 0–4.
 */
public enum Fidelity {
  /**
   * Level 0, the bottom of the scale: the least an answer may be and still answer the request — a
   * cached reply, a rule-based one, or a very small model's (§3.2). Every level meets it as a
   * floor.
   */
  F0,
  /**
   * Level 1. The spec names only the two ends of the scale; the middle levels are defined by their
   * order alone (§3.2): F1 is above F0 and below F2, and a backend rated F1 is admitted for a floor
   * of F0 or F1 (§4).
   */
  F1,
  /** Level 2, between F1 and F3; like F1 it is defined by its place in the order (§3.2). */
  F2,
  /** Level 3, between F2 and F4; like F1 it is defined by its place in the order (§3.2). */
  F3,
  /**
   * Level 4, the top of the scale: an answer of the grade the strongest current models give (§3.2).
   * Only a backend rated F4 is admitted for an F4 floor (§4).
   */
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
