package org.meshjava.core.internal;

import org.jspecify.annotations.Nullable;

/**
 * What a throwable from code we do not own says, read safely: an engine's, a counter channel's, a
 * backend's being judged. Its {@code getMessage} and {@code toString} are that code as much as the
 * call that threw it, and may throw themselves; words built from them inside the catch that turns
 * the throw into a typed refusal, a failed read or a refused candidate would otherwise end that
 * catch with the new throw. Only the JVM failing while the words are built passes ({@link
 * JvmFailure}). One place for the steward, the meters and the router. Stateless.
 */
public final class ThrowableWords {
  private ThrowableWords() {}

  /**
   * {@code e}'s message; null where it has none or building it threw (only the JVM failing passes).
   */
  public static @Nullable String messageOf(Throwable e) {
    try {
      return e.getMessage();
    } catch (RuntimeException | Error failed) {
      JvmFailure.passIfFailing(failed);
      return null;
    }
  }

  /**
   * {@code e} as its {@code toString} says it; its class's name where that throws (only the JVM
   * failing passes).
   */
  public static String describe(Throwable e) {
    try {
      return String.valueOf(e);
    } catch (RuntimeException | Error failed) {
      JvmFailure.passIfFailing(failed);
      return e.getClass().getName();
    }
  }
}
