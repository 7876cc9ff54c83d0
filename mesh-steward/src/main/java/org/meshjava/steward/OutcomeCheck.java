package org.meshjava.steward;

import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenAccounting;

/**
 * Checks an engine's report against the request and the rating the router admitted the engine on
 * before sealing.
 */
final class OutcomeCheck {
  private OutcomeCheck() {}

  /**
   * Refuses a report that does not fit the request or the admitted rating.
   *
   * @param admitted the rating the router admitted the engine on (its route candidate's), which a
   *     delivered level may not exceed (§3.2.1); the engine's {@code fidelity()} read again after
   *     the work could differ from it
   */
  static void check(
      RoutedBackend backend, Fidelity admitted, ServeRequest request, EngineResult result)
      throws ServeException {
    ServeOutcome o = result.outcome();
    // Read once: the refusal must name the accounting it was judged on.
    TokenAccounting declared =
        EngineAnswer.of(backend, "say how it counts tokens", backend.engine()::tokenAccounting);
    if (!declared.admits(result.accounting())) {
      // An engine that tokenizes locally may not escape "tokens_out = ids committed" by calling
      // its result remote-counted.
      throw inconsistent(
          backend,
          "declares token accounting "
              + declared
              + " but returned a result accounted "
              + result.accounting());
    }
    if (o.deliveredFidelity().isPresent() && o.deliveredFidelity().get().compareTo(admitted) > 0) {
      // §3.2.1: refuse, never clamp; a clamped figure would hide a dishonest engine.
      throw new ServeException(
          ServeException.Reason.FIDELITY_OVERCLAIM,
          backend
              + " reported delivered fidelity "
              + o.deliveredFidelity().get()
              + " above its advertised "
              + admitted);
    }
    if (request.isDecision()) {
      if (o.decision().isEmpty()) {
        throw inconsistent(backend, "answered a decision request without a decision outcome");
      }
      if (o.tokensOut() != 0) {
        throw inconsistent(backend, "emitted " + o.tokensOut() + " tokens for a typed decision");
      }
    } else {
      if (o.decision().isPresent()) {
        throw inconsistent(backend, "reported a decision outcome for a generation");
      }
      if (o.tokensOut() > request.maxTokens()) {
        throw inconsistent(
            backend, "emitted " + o.tokensOut() + " tokens over max_tokens " + request.maxTokens());
      }
    }
  }

  private static ServeException inconsistent(RoutedBackend backend, String what) {
    return new ServeException(ServeException.Reason.INCONSISTENT_OUTCOME, backend + " " + what);
  }
}
