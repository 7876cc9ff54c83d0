package org.meshjava.core;

/**
 * Range checks for the unsigned wire types of mesh/1 (u32 and u64 fields: token counts, µJ figures
 * and budgets, chain sequences) where Java holds them in a {@code long}. One rule and one message,
 * {@code <field> must be non-negative: <value>} (or {@code must be a u32}), for the core vocabulary
 * and for the JCP grants, the spend ledger and the receipt chain built on it; and the one
 * saturating sum those figures are added with.
 *
 * <p>API rather than an internal package exported only to those modules: the records that call it
 * are built by every module, and a qualified export fails at run time when the caller sits on the
 * class path beside a mesh-core on the module path (as in an engine module's tests).
 *
 * <p>Stateless and thread-safe.
 */
public final class Unsigned {
  /** The largest u32. */
  public static final long U32_MAX = 0xFFFF_FFFFL;

  private Unsigned() {}

  /**
   * Checks that {@code value} fits a u32.
   *
   * @param field the field's name as the message gives it
   * @param value the value
   * @return {@code value}
   * @throws IllegalArgumentException if it is negative or above {@link #U32_MAX}
   */
  public static long u32(String field, long value) {
    if (value < 0 || value > U32_MAX) {
      throw new IllegalArgumentException(field + " must be a u32 (0.." + U32_MAX + "): " + value);
    }
    return value;
  }

  /**
   * Checks that {@code value} fits a u64 held in a Java {@code long}, that is, is not negative.
   *
   * @param field the field's name as the message gives it
   * @param value the value
   * @return {@code value}
   * @throws IllegalArgumentException if it is negative
   */
  public static long u64(String field, long value) {
    if (value < 0) {
      throw new IllegalArgumentException(field + " must be non-negative: " + value);
    }
    return value;
  }

  /**
   * The sum of two u64 figures, or {@link Long#MAX_VALUE} where it would not fit a {@code long}:
   * figures that only grow (spend, energy, totals) stop at the top rather than wrap negative.
   *
   * @param a a non-negative figure
   * @param b a non-negative figure
   * @return {@code a + b}, saturated
   */
  public static long saturatingAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }
}
