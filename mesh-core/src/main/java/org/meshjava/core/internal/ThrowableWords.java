package org.meshjava.core.internal;

import java.util.function.Consumer;
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

  /** {@code e}'s cause; null where it has none or asking threw (only the JVM failing passes). */
  public static @Nullable Throwable causeOf(Throwable e) {
    try {
      return e.getCause();
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

  /**
   * Logs {@code thrown} with its stack trace through {@code withTrace}; where printing it throws,
   * through {@code withoutTrace}, given its class's name. Its {@code getMessage}, {@code toString},
   * {@code getStackTrace} and {@code getCause} may be foreign code that throws: out of the logging,
   * that throw would leave the catch that logs it (a guard around a listener, the binding's answer
   * of a typed 500) with an untyped one in its place. Only the JVM failing while it prints passes.
   */
  public static void log(
      Throwable thrown, Consumer<Throwable> withTrace, Consumer<String> withoutTrace) {
    try {
      withTrace.accept(thrown);
    } catch (RuntimeException | Error unprintable) {
      // The heap running out while the trace is printed is the process failing, not the
      // throwable's words: it passes, as it does wherever the JVM fails (JvmFailure).
      JvmFailure.passIfFailing(unprintable);
      withoutTrace.accept(thrown.getClass().getName());
    }
  }
}
