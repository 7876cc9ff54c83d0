package org.meshjava.openai;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.OptionalLong;

/**
 * The one reader of a body's integer fields: those OpenAI's API types as integers ({@code n},
 * {@code max_tokens}, {@code max_completion_tokens}, {@code max_output_tokens}, {@code seed},
 * {@code top_logprobs}, {@code max_tool_calls}). A JSON number with a fraction or an exponent part
 * ({@code 1.0}, {@code 1e0}) is a decimal there, refused with 400 {@code invalid_type} whatever its
 * value, and so it is here: read one way for one field and another for the next, {@code "n": 1.0}
 * would be served while {@code "max_tokens": 1.0} would be refused. Stateless.
 */
final class WholeNumberField {
  private WholeNumberField() {}

  /**
   * The whole number {@code field} of {@code node}; empty when it is absent or JSON null (the
   * default).
   *
   * @throws BindingException {@code INVALID_FIELD} naming the field: {@code invalid_type} if it is
   *     anything but an integer written without a fraction or exponent; {@code
   *     integer_above_max_value} or {@code integer_below_min_value} outside 64 bits
   */
  static OptionalLong read(JsonNode node, String field) throws BindingException {
    return read(node, field, Long.MIN_VALUE, Long.MAX_VALUE);
  }

  /**
   * {@link #read(JsonNode, String)}, the number from {@code min} to {@code max}.
   *
   * @throws BindingException {@code INVALID_FIELD} naming the field, also when it is out of range
   *     ({@code integer_below_min_value}, {@code integer_above_max_value}, naming the bound)
   */
  static OptionalLong read(JsonNode node, String field, long min, long max)
      throws BindingException {
    JsonNode v = node.get(field);
    if (v == null || v.isNull()) {
      return OptionalLong.empty();
    }
    if (!v.isIntegralNumber()) {
      throw FieldRefusal.invalidType(field, "an integer", v);
    }
    if (!v.canConvertToLong()) {
      // Past 64 bits: refused by its side, never wrapped (every bound is a long).
      java.math.BigInteger big = v.bigIntegerValue();
      throw big.signum() < 0
          ? FieldRefusal.integerBelow(field, min, big.toString())
          : FieldRefusal.integerAbove(field, max, big.toString());
    }
    long value = v.longValue();
    if (value < min) {
      throw FieldRefusal.integerBelow(field, min, Long.toString(value));
    }
    if (value > max) {
      throw FieldRefusal.integerAbove(field, max, Long.toString(value));
    }
    return OptionalLong.of(value);
  }
}
