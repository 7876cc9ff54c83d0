package org.meshjava.steward;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.DecisionAnswer;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.TokenAccounting;
import org.meshjava.core.TokenSequence;
import org.meshjava.receipt.Envelope;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.SealedReceipt;
import org.meshjava.router.RouteDecision;

/**
 * Everything one serve produced: the output tokens, the engine's outcome, the route decision with
 * every candidate, the sealed receipt, and for a decision asked with typed questions the engine's
 * answers.
 *
 * <p>Immutable: it may be handed to any thread.
 *
 * @param tokens the output tokens
 * @param outcome the engine's report
 * @param route the router's decision
 * @param sealed the receipt and its envelope
 * @param answers one answer per question, in order, when the serve was a decision asked with
 *     questions; otherwise empty. Answers never enter the receipt (§6.1).
 * @param payload the prompt token payload the engine was handed: the caller's own, or the routed
 *     engine's encoding of the prompt text. A disclosure names it (§6.4); it is never sealed in the
 *     clear.
 * @param accounting whose count the outcome's token counters are (see {@link TokenAccounting}): the
 *     routed engine's own ids, or a remote server's report
 * @param text the output decoded by the routed engine's own tokenizer, for a generation whose
 *     prompt was handed over as text ({@link org.meshjava.core.PromptText}); decoded before the
 *     serve was debited or sealed, so a tokenizer that cannot decode it refused the serve instead.
 *     Empty for a payload the caller tokenized itself, and for a decision
 */
public record ServeResult(
    TokenSequence tokens,
    ServeOutcome outcome,
    RouteDecision route,
    SealedReceipt sealed,
    List<DecisionAnswer> answers,
    TokenSequence payload,
    TokenAccounting accounting,
    Optional<String> text) {

  /**
   * Validates the record.
   *
   * @throws NullPointerException if a component is null; absent parts are empty, never null
   */
  public ServeResult {
    Objects.requireNonNull(tokens, "tokens");
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(route, "route");
    Objects.requireNonNull(sealed, "sealed");
    answers = List.copyOf(answers);
    Objects.requireNonNull(payload, "payload");
    Objects.requireNonNull(accounting, "accounting");
    Objects.requireNonNull(text, "text");
  }

  /**
   * The receipt.
   *
   * @return the sealed receipt, as {@code sealed().receipt()}
   */
  public MeshReceipt receipt() {
    return sealed.receipt();
  }

  /**
   * The receipt's envelope.
   *
   * @return the signed JCR-1 envelope, as {@code sealed().envelope()}
   */
  public Envelope envelope() {
    return sealed.envelope();
  }
}
