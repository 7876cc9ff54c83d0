package org.meshjava.openai;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The refusals of a body field that has the wrong JSON type or lies outside its range, worded and
 * coded as OpenAI's API words and codes them: {@code invalid_type} for the type, and {@code
 * integer_below_min_value}, {@code integer_above_max_value}, {@code decimal_below_min_value} or
 * {@code decimal_above_max_value} for the range, each {@code param} the field and the message
 * naming the bound. A client written for that API (an SDK that reads {@code code}, a retry policy
 * that tells a bad value from a bad type) then reads our refusal as it reads the real one. Each is
 * {@link BindingException.Reason#INVALID_FIELD}. Stateless.
 */
final class FieldRefusal {
  private FieldRefusal() {}

  /**
   * {@code field} is not of the JSON type {@code expected} ("an integer", "a decimal", "a
   * boolean").
   */
  static BindingException invalidType(String field, String expected, JsonNode got) {
    return new BindingException(
        BindingException.Reason.INVALID_FIELD,
        field,
        "Invalid type for '"
            + field
            + "': expected "
            + expected
            + ", but got "
            + kind(got)
            + " instead.",
        "invalid_type");
  }

  /** The whole number {@code got} of {@code field} is below {@code min}. */
  static BindingException integerBelow(String field, long min, String got) {
    return range(field, "integer below minimum", ">= " + min, got, "integer_below_min_value");
  }

  /** The whole number {@code got} of {@code field} is above {@code max}. */
  static BindingException integerAbove(String field, long max, String got) {
    return range(field, "integer above maximum", "<= " + max, got, "integer_above_max_value");
  }

  /** The number {@code got} of {@code field} is below {@code min}. */
  static BindingException decimalBelow(String field, String min, String got) {
    return range(field, "decimal below minimum", ">= " + min, got, "decimal_below_min_value");
  }

  /** The number {@code got} of {@code field} is above {@code max}. */
  static BindingException decimalAbove(String field, String max, String got) {
    return range(field, "decimal above maximum", "<= " + max, got, "decimal_above_max_value");
  }

  /**
   * A range refusal: {@code what} names the fault in OpenAI's words ("integer below minimum"), and
   * {@code code} is OpenAI's code for it, written out rather than derived from those words, so that
   * rewording a message cannot change the code a client matches on.
   */
  private static BindingException range(
      String field, String what, String expected, String got, String code) {
    return new BindingException(
        BindingException.Reason.INVALID_FIELD,
        field,
        "Invalid '"
            + field
            + "': "
            + what
            + " value. Expected a value "
            + expected
            + ", but got "
            + got
            + " instead.",
        code);
  }

  /** The JSON kind of {@code v}, as a refusal names what it got. */
  private static String kind(JsonNode v) {
    if (v.isTextual()) {
      return "a string";
    }
    if (v.isBoolean()) {
      return "a boolean";
    }
    if (v.isArray()) {
      return "an array";
    }
    if (v.isObject()) {
      return "an object";
    }
    if (v.isNull()) {
      return "null";
    }
    return v.isIntegralNumber() ? "an integer" : "a decimal number";
  }
}
