package org.meshjava.core;

import java.util.List;
import java.util.Optional;
import org.meshjava.core.internal.RequestCbor;

/**
 * The shape of a typed decision (§3.6): how many questions, how many options are scored across
 * them, and how many of the prompt tokens are schema rather than state. On a request it says a
 * decision is asked for; on an outcome it says what was answered.
 *
 * @param questions typed questions (u32, at least 1)
 * @param optionsScored options scored across all questions (u32, at least {@code questions})
 * @param schemaTokens prompt tokens that are schema, not state (u32)
 */
public record DecisionShape(long questions, long optionsScored, long schemaTokens)
    implements CanonicalForm {

  /** Validates the shape. */
  public DecisionShape {
    Unsigned.u32("questions", questions);
    Unsigned.u32("options_scored", optionsScored);
    Unsigned.u32("schema_tokens", schemaTokens);
    if (questions < 1) {
      throw new IllegalArgumentException("a decision has at least one question");
    }
    if (optionsScored < questions) {
      throw new IllegalArgumentException(
          "options_scored (" + optionsScored + ") must be at least questions (" + questions + ")");
    }
  }

  /**
   * Why {@code asked} are not the questions this shape counts, or empty if they are: as many
   * questions, and as many options across them, as the shape says (§3.6). The steward checks this
   * before routing and a decision engine before answering, so both refuse the same requests. Schema
   * tokens are not compared here: how many a schema takes depends on the engine's tokenizer.
   */
  public Optional<String> misfit(List<DecisionQuestion> asked) {
    long options = asked.stream().mapToLong(DecisionQuestion::optionCount).sum();
    if (asked.size() == questions && options == optionsScored) {
      return Optional.empty();
    }
    return Optional.of(
        asked.size()
            + " questions over "
            + options
            + " options do not fit the request's "
            + questions
            + " questions over "
            + optionsScored
            + " options");
  }

  /** Returns {@code {"questions", "options_scored", "schema_tokens"}} in canonical CBOR. */
  @Override
  public byte[] encode() {
    return RequestCbor.decision(this).encode();
  }
}
