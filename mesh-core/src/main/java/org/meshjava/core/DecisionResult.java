package org.meshjava.core;

import java.util.List;
import java.util.Objects;

/**
 * What a {@link DecisionEngine} returns from one decision: its outcome report (no tokens) and one
 * answer per question, in the order the questions were asked.
 *
 * @param outcome the counters, the decision shape answered and an optional delivered fidelity
 * @param answers one answer per question
 */
public record DecisionResult(ServeOutcome outcome, List<DecisionAnswer> answers) {

  /** Validates that the report is a decision's and that it emitted nothing. */
  public DecisionResult {
    Objects.requireNonNull(outcome, "outcome");
    answers = List.copyOf(answers);
    if (outcome.decision().isEmpty()) {
      throw new IllegalArgumentException("a decision result needs a decision outcome");
    }
    if (outcome.tokensOut() != 0) {
      throw new IllegalArgumentException(
          "a decision emits no tokens, but tokens_out is " + outcome.tokensOut());
    }
  }

  /** The result as the token-level view the steward meters and seals: no tokens, this outcome. */
  public EngineResult toEngineResult() {
    return new EngineResult(TokenSequence.empty(), outcome);
  }
}
