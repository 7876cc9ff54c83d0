package org.meshjava.steward;

import java.util.Objects;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.TokenSequence;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.SealedReceipt;
import org.meshjava.router.RouteDecision;

/**
 * Everything one serve produced: the output tokens, the engine's outcome, the route decision with
 * every candidate, and the sealed receipt.
 *
 * @param tokens the output tokens
 * @param outcome the engine's report
 * @param route the router's decision
 * @param sealed the receipt and its envelope
 */
public record ServeResult(
    TokenSequence tokens, ServeOutcome outcome, RouteDecision route, SealedReceipt sealed) {

  /** Validates the record. */
  public ServeResult {
    Objects.requireNonNull(tokens, "tokens");
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(route, "route");
    Objects.requireNonNull(sealed, "sealed");
  }

  /** The receipt. */
  public MeshReceipt receipt() {
    return sealed.receipt();
  }

  /** The receipt's envelope. */
  public Envelope envelope() {
    return sealed.envelope();
  }
}
