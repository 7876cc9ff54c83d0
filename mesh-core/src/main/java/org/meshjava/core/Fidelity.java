package org.meshjava.core;

import java.util.Objects;
import java.util.Optional;

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

  /**
   * The fidelity that {@code text} names, as an operator or a client writes one: {@code F0} to
   * {@code F4}, or the level alone, {@code 0} to {@code 4}. Empty for anything else (a lower-case
   * {@code f}, white space, a sign, a digit other than ASCII's), so that each reader refuses it in
   * its own words. The one textual form every configuration and request reader shares, so that a
   * level one of them accepts is accepted by all. Pure: safe from any thread.
   *
   * @throws NullPointerException if {@code text} is null, saying so: an absent setting is the
   *     caller's to default or refuse, not a text that names no level
   */
  public static Optional<Fidelity> parse(String text) {
    Objects.requireNonNull(text, "the text of a fidelity level (F0-F4 or 0-4) is null");
    int digit = text.length() == 2 && text.charAt(0) == 'F' ? 1 : 0;
    if (text.length() != digit + 1) {
      return Optional.empty();
    }
    char c = text.charAt(digit);
    return c >= '0' && c <= '4' ? Optional.of(of(c - '0')) : Optional.empty();
  }

  /** Returns whether this level is at least {@code floor} (§3.2: ordering is normative). */
  public boolean meets(Fidelity floor) {
    return compareTo(floor) >= 0;
  }
}
