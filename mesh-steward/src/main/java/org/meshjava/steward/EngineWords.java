package org.meshjava.steward;

import org.jspecify.annotations.Nullable;
import org.meshjava.core.internal.JvmFailure;

/**
 * What an engine's throwable says, read safely. Its message and its {@code toString} are the
 * engine's code as much as its work is, and may throw themselves; a refusal built from them would
 * then end the serve with that throw instead of its typed refusal. Stateless.
 */
final class EngineWords {
  private EngineWords() {}

  /**
   * {@code e}'s message; null where it has none or building it threw (only the JVM failing passes,
   * {@link JvmFailure}).
   */
  static @Nullable String messageOf(Throwable e) {
    try {
      return e.getMessage();
    } catch (RuntimeException | Error failed) {
      JvmFailure.passIfFailing(failed);
      return null;
    }
  }

  /** {@code e} as {@code toString} says it; its class's name where that throws. */
  static String describe(Throwable e) {
    try {
      return String.valueOf(e);
    } catch (RuntimeException | Error failed) {
      JvmFailure.passIfFailing(failed);
      return e.getClass().getName();
    }
  }
}
