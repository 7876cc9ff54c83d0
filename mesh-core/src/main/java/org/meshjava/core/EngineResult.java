package org.meshjava.core;

import java.util.Objects;

/**
 * What an engine returns from one serve: the tokens it emitted, its outcome report, and whose count
 * the report's token counters are.
 *
 * <p>Immutable.
 *
 * @param tokens the output token ids (empty for a typed decision); the ids the output commitment
 *     covers (§6.4)
 * @param outcome the counters and optional delivered fidelity
 * @param accounting whose count {@code tokens_out} is: under {@link TokenAccounting#EMITTED} it
 *     must equal the number of {@code tokens}; under the remote accountings it is the remote side's
 *     count, which may differ
 */
public record EngineResult(TokenSequence tokens, ServeOutcome outcome, TokenAccounting accounting) {

  /** Validates that an emitted count matches the tokens. */
  public EngineResult {
    Objects.requireNonNull(tokens, "tokens");
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(accounting, "accounting");
    if (accounting == TokenAccounting.EMITTED && tokens.size() != outcome.tokensOut()) {
      throw new IllegalArgumentException(
          "engine returned "
              + tokens.size()
              + " tokens but reported tokens_out "
              + outcome.tokensOut());
    }
  }

  /** A result of an engine that counts the ids it emitted ({@link TokenAccounting#EMITTED}). */
  public EngineResult(TokenSequence tokens, ServeOutcome outcome) {
    this(tokens, outcome, TokenAccounting.EMITTED);
  }
}
