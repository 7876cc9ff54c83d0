package org.meshjava.core;

import java.time.Duration;
import java.util.Objects;

/**
 * The checks a builder runs on a setting before it keeps it: a count at least some minimum, a
 * number within a range, a time limit above or not below zero, a name not blank. Each returns the
 * value it was given, so a setter reads {@code limit = Setting.atLeast("limit", v, 1, "must be
 * positive: ")}, and throws {@link IllegalArgumentException} for a value the builder refuses, when
 * it is set rather than at {@code build()}.
 *
 * <p>The message names the setting, then says the builder's own {@code words}, then the value
 * refused: {@code name + " " + words + value}. The words are the caller's because the builders have
 * long worded the same rule differently ("must be non-negative: ", "must not be negative: ", "is at
 * least 0, got "), and the messages reach operators as they are; this class keeps each check in one
 * place without rewording any of them. An engine's own builder (an {@link EngineBuilder} subclass)
 * may use it too. Stateless and thread-safe.
 */
public final class Setting {
  private Setting() {}

  /**
   * {@code v}, a count of at least {@code min}.
   *
   * @param name the setting, first in the message
   * @param words what the message says between the name and the value, e.g. {@code "must be
   *     positive: "}
   * @throws IllegalArgumentException {@code name + " " + words + v}, if {@code v < min}
   */
  public static long atLeast(String name, long v, long min, String words) {
    if (v < min) {
      throw refused(name, words, v);
    }
    return v;
  }

  /** {@link #atLeast(String, long, long, String)} for an {@code int} setting. */
  public static int atLeast(String name, int v, int min, String words) {
    atLeast(name, (long) v, min, words);
    return v;
  }

  /**
   * {@code v}, a number from {@code min} to {@code max}, both included.
   *
   * @param name the setting, first in the message
   * @param words what the message says between the name and the value, e.g. {@code "must be
   *     0-65535: "}
   * @throws IllegalArgumentException {@code name + " " + words + v}, if {@code v} is outside
   */
  public static long within(String name, long v, long min, long max, String words) {
    if (v < min || v > max) {
      throw refused(name, words, v);
    }
    return v;
  }

  /** {@link #within(String, long, long, long, String)} for an {@code int} setting. */
  public static int within(String name, int v, int min, int max, String words) {
    within(name, (long) v, min, max, words);
    return v;
  }

  /**
   * The longest time limit a builder keeps: 100 years. A deadline is a point on {@link
   * System#nanoTime()}'s scale, which holds about 292 years in a {@code long}; a limit past that
   * cannot be kept as one ({@link Duration#toNanos()} throws), so it would fail every request that
   * applies it, long after the setting was taken.
   */
  public static final Duration MAX_TIME_LIMIT = Duration.ofDays(36_525);

  /**
   * {@code v}, a time limit longer than zero and at most {@link #MAX_TIME_LIMIT}.
   *
   * @param name the setting, first in the message and the null check's message
   * @param words what the message says between the name and the value
   * @throws IllegalArgumentException {@code name + " " + words + v}, if {@code v} is zero or
   *     negative; naming the bound, if {@code v} is over it
   */
  public static Duration positive(String name, Duration v, String words) {
    if (Objects.requireNonNull(v, name).isNegative() || v.isZero()) {
      throw refused(name, words, v);
    }
    return notOverMax(name, v);
  }

  /**
   * {@code v}, a time that may be zero but not negative, and at most {@link #MAX_TIME_LIMIT}.
   *
   * @param name the setting, first in the message and the null check's message
   * @param words what the message says between the name and the value
   * @throws IllegalArgumentException {@code name + " " + words + v}, if {@code v} is negative;
   *     naming the bound, if {@code v} is over it
   */
  public static Duration notNegative(String name, Duration v, String words) {
    if (Objects.requireNonNull(v, name).isNegative()) {
      throw refused(name, words, v);
    }
    return notOverMax(name, v);
  }

  /**
   * {@code v}, a time that may be zero but not negative, where any time over {@link
   * #MAX_TIME_LIMIT} is taken as that bound rather than refused: for a wait or a period whose
   * builder documents a huge value as "as long as can be" ({@code
   * Duration.ofSeconds(Long.MAX_VALUE)} written to mean never), which 100 years already is.
   *
   * @param name the setting, first in the message and the null check's message
   * @param words what the message says between the name and the value
   * @throws IllegalArgumentException {@code name + " " + words + v}, if {@code v} is negative
   */
  public static Duration notNegativeUpToMax(String name, Duration v, String words) {
    Duration kept =
        Objects.requireNonNull(v, name).compareTo(MAX_TIME_LIMIT) > 0 ? MAX_TIME_LIMIT : v;
    return notNegative(name, kept, words);
  }

  private static Duration notOverMax(String name, Duration v) {
    if (v.compareTo(MAX_TIME_LIMIT) > 0) {
      throw new IllegalArgumentException(
          name + " must be at most " + MAX_TIME_LIMIT.toDays() + " days (100 years), not " + v);
    }
    return v;
  }

  /**
   * {@code v}, a name with something other than white space in it.
   *
   * @param name the setting, the null check's message
   * @throws IllegalArgumentException {@code name + " must not be blank"}, if {@code v} is blank
   */
  public static String notBlank(String name, String v) {
    if (Objects.requireNonNull(v, name).isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
    return v;
  }

  private static IllegalArgumentException refused(String name, String words, Object v) {
    return new IllegalArgumentException(name + " " + words + v);
  }
}
