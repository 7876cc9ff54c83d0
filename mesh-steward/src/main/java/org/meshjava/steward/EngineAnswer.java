package org.meshjava.steward;

import java.util.Objects;
import java.util.function.Supplier;
import org.meshjava.core.internal.JvmFailure;

/**
 * What a serve asks the routed engine outside its work (its weights, recipe, context size, token
 * accounting, energy domains, the estimate for its payload). Each answer is the engine's own code,
 * so whatever it throws, or a null, is the backend failing, refused {@code ENGINE_FAILED} as a
 * throw from its work is, never an exception past the serve; only the JVM failing passes as it is
 * ({@link JvmFailure}). The caller settles what the serve reserved.
 */
final class EngineAnswer {
  private EngineAnswer() {}

  /**
   * The engine's answer to {@code question}, a refusal naming {@code backend} as it was registered.
   *
   * @param doing what the answer lets the serve do, as the refusal says it failed ("name its
   *     weights")
   * @throws ServeException {@code ENGINE_FAILED} if the question throws or answers null
   */
  static <T> T of(RoutedBackend backend, String doing, Supplier<T> question) throws ServeException {
    try {
      return Objects.requireNonNull(question.get(), doing);
    } catch (RuntimeException | Error e) {
      JvmFailure.passIfFailing(e);
      throw new ServeException(
          ServeException.Reason.ENGINE_FAILED,
          backend + " failed: it could not " + doing + ": " + e,
          e);
    }
  }
}
