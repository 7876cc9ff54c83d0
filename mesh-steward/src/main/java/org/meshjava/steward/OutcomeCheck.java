package org.meshjava.steward;

import org.meshjava.core.EngineResult;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;

/** Checks an engine's report against the request and the engine's own rating before sealing. */
final class OutcomeCheck {
  private OutcomeCheck() {}

  static void check(ServingEngine engine, ServeRequest request, EngineResult result)
      throws ServeException {
    ServeOutcome o = result.outcome();
    if (!engine.tokenAccounting().admits(result.accounting())) {
      // An engine that tokenizes locally may not escape "tokens_out = ids committed" by calling
      // its result remote-counted.
      throw inconsistent(
          engine,
          "declares token accounting "
              + engine.tokenAccounting()
              + " but returned a result accounted "
              + result.accounting());
    }
    if (o.deliveredFidelity().isPresent()
        && o.deliveredFidelity().get().compareTo(engine.fidelity()) > 0) {
      // §3.2.1: refuse, never clamp; a clamped figure would hide a dishonest engine.
      throw new ServeException(
          ServeException.Reason.FIDELITY_OVERCLAIM,
          "backend "
              + engine.name()
              + " reported delivered fidelity "
              + o.deliveredFidelity().get()
              + " above its advertised "
              + engine.fidelity());
    }
    if (request.isDecision()) {
      if (o.decision().isEmpty()) {
        throw inconsistent(engine, "answered a decision request without a decision outcome");
      }
      if (o.tokensOut() != 0) {
        throw inconsistent(engine, "emitted " + o.tokensOut() + " tokens for a typed decision");
      }
    } else {
      if (o.decision().isPresent()) {
        throw inconsistent(engine, "reported a decision outcome for a generation");
      }
      if (o.tokensOut() > request.maxTokens()) {
        throw inconsistent(
            engine, "emitted " + o.tokensOut() + " tokens over max_tokens " + request.maxTokens());
      }
    }
  }

  private static ServeException inconsistent(ServingEngine engine, String what) {
    return new ServeException(
        ServeException.Reason.INCONSISTENT_OUTCOME, "backend " + engine.name() + " " + what);
  }
}
