package org.meshjava.steward;

import java.util.function.Supplier;
import org.meshjava.core.internal.JvmFailure;
import org.meshjava.core.internal.MappedReadFault;
import org.meshjava.core.internal.ThrowableWords;

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
    T answer;
    try {
      answer = question.get();
      // Last in the region, as after the engine's work (Metering): a fault of a mapped read its
      // compiled code held back is thrown here and refused, not later and raw (SPEC.md §60.8).
      backend.heldFaults().run();
    } catch (RuntimeException | Error e) {
      // A throw ends the region too: the question may have thrown over the garbage a faulted read
      // gave, the fault still held back. Taken here, the question's throw is suppressed on it.
      Throwable failed = MappedReadFault.afterThrow(e, backend.heldFaults());
      JvmFailure.passIfFailing(failed);
      // The operator reads the throw as Java prints it (its class too); the client reads the
      // engine's declared words, or a reference to the operator's log (EngineFailureLog), as for a
      // failed serve (Metering#engineFailed, ServeException#shown).
      throw EngineFailureLog.SHARED.refusal(
          backend,
          backend + " failed: it could not " + doing + ": ",
          MappedReadFault.in(failed) ? Metering.why(failed) : ThrowableWords.describe(failed),
          failed);
    }
    if (answer == null) {
      // Refused here in words of its own: a NullPointerException thrown to the catch above said
      // what was asked twice, and named an exception nobody threw.
      throw new ServeException(
          ServeException.Reason.ENGINE_FAILED,
          backend + " failed: it could not " + doing + ": it answered nothing (null)");
    }
    return answer;
  }
}
