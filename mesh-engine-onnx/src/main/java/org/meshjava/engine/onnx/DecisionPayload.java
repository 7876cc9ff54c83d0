package org.meshjava.engine.onnx;

import java.util.Objects;
import org.meshjava.core.TokenSequence;

/**
 * A decision's prompt payload laid out for {@link OnnxDecisionEngine}: the questions' schema tokens
 * first, then the state under judgement, both in the engine's own vocabulary.
 *
 * @param tokens the whole payload
 * @param schemaTokens how many leading tokens are schema: the request's {@code schema_tokens}
 */
public record DecisionPayload(TokenSequence tokens, long schemaTokens) {

  /** Validates the split. */
  public DecisionPayload {
    Objects.requireNonNull(tokens, "tokens");
    if (schemaTokens < 0 || schemaTokens > tokens.size()) {
      throw new IllegalArgumentException(
          "schemaTokens " + schemaTokens + " outside [0, " + tokens.size() + "]");
    }
  }

  /** How many tokens are state. */
  public long stateTokens() {
    return tokens.size() - schemaTokens;
  }
}
