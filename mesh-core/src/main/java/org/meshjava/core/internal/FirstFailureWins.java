package org.meshjava.core.internal;

import org.jspecify.annotations.Nullable;

/**
 * The rule for a run of steps that must all run whatever each throws (a close's parts, every
 * counter's end): the first failure is the one reported, and each later one is kept on it as
 * suppressed rather than lost or thrown in its place. One place for the steward's close, the
 * meters' loops over their counters and the command line's clean-up, which each wrote it out by
 * hand.
 *
 * <p>Stateless, so safe from any thread; {@link Throwable#addSuppressed} is itself synchronised, so
 * two threads adding to one first failure lose neither.
 */
public final class FirstFailureWins {
  private FirstFailureWins() {}

  /**
   * What to report once {@code later} was thrown: {@code later} where nothing failed before ({@code
   * first} null), else {@code first}, with {@code later} suppressed onto it. The same instance
   * thrown twice (a step that rethrows what an earlier one threw) is not suppressed on itself,
   * which {@link Throwable#addSuppressed} would refuse with an {@code IllegalArgumentException} in
   * place of both.
   */
  public static Throwable keep(@Nullable Throwable first, Throwable later) {
    if (first == null) {
      return later;
    }
    if (first != later) {
      first.addSuppressed(later);
    }
    return first;
  }
}
