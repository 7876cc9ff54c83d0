package org.meshjava.core;

import java.util.Objects;

/**
 * What an engine returns from one serve: the tokens it emitted and its outcome report.
 *
 * @param tokens the output token ids (empty for a typed decision)
 * @param outcome the counters and optional delivered fidelity
 */
public record EngineResult(TokenSequence tokens, ServeOutcome outcome) {

  /** Validates that the emitted count matches the tokens. */
  public EngineResult {
    Objects.requireNonNull(tokens, "tokens");
    Objects.requireNonNull(outcome, "outcome");
    if (tokens.size() != outcome.tokensOut()) {
      throw new IllegalArgumentException(
          "engine returned "
              + tokens.size()
              + " tokens but reported tokens_out "
              + outcome.tokensOut());
    }
  }
}
