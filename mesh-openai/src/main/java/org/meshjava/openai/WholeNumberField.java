package org.meshjava.openai;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.OptionalLong;

/**
 * The one reader of a body's integer fields: those OpenAI's API types as integers ({@code n},
 * {@code max_tokens}, {@code max_completion_tokens}, {@code max_output_tokens}, {@code seed},
 * {@code top_logprobs}, {@code max_tool_calls}). A JSON number with a fraction or an exponent part
 * ({@code 1.0}, {@code 1e0}) is a decimal there, refused with 400 whatever its value, and so it is
 * here: read one way for one field and another for the next, {@code "n": 1.0} would be served while
 * {@code "max_tokens": 1.0} would be refused. Stateless.
 */
final class WholeNumberField {
  private WholeNumberField() {}

  /**
   * The whole number {@code field} of {@code node}; empty when it is absent or JSON null (the
   * default).
   *
   * @throws BindingException {@code INVALID_FIELD} naming the field, if it is anything but an
   *     integer written without a fraction or exponent, or is outside 64 bits
   */
  static OptionalLong read(JsonNode node, String field) throws BindingException {
    JsonNode v = node.get(field);
    if (v == null || v.isNull()) {
      return OptionalLong.empty();
    }
    if (!v.isIntegralNumber() || !v.canConvertToLong()) {
      throw invalid(field, "a whole number of at most 64 bits", v);
    }
    return OptionalLong.of(v.asLong());
  }

  /**
   * {@link #read(JsonNode, String)}, the number from {@code min} to {@code max}.
   *
   * @throws BindingException {@code INVALID_FIELD} naming the field, also when it is out of range
   */
  static OptionalLong read(JsonNode node, String field, long min, long max)
      throws BindingException {
    JsonNode v = node.get(field);
    if (v == null || v.isNull()) {
      return OptionalLong.empty();
    }
    if (!v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() < min || v.asLong() > max) {
      throw invalid(field, "a whole number from " + min + " to " + max, v);
    }
    return OptionalLong.of(v.asLong());
  }

  private static BindingException invalid(String field, String mustBe, JsonNode v) {
    return new BindingException(
        BindingException.Reason.INVALID_FIELD,
        field,
        field
            + " must be "
            + mustBe
            + (v.isNumber() && !v.isIntegralNumber()
                ? ", written without a decimal point or exponent"
                : ""));
  }
}
