package org.meshjava.openai;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The reader of a body's number fields that OpenAI's API types as decimals with a range: {@code
 * temperature} (0 to 2), {@code top_p} (0 to 1), and chat's {@code frequency_penalty} and {@code
 * presence_penalty} (-2 to 2). Their values stay the backend's own (SPEC.md section 70: sampling is
 * not read), but a value that API refuses is refused here as it refuses it, so a body served here
 * is never one the API it imitates turns away. Stateless.
 */
final class DecimalField {
  private DecimalField() {}

  /**
   * Refuses {@code field} of {@code body} unless absent, JSON null, or a number from {@code min} to
   * {@code max}.
   *
   * @throws BindingException {@code INVALID_FIELD} naming the field: {@code invalid_type} for a
   *     value that is not a number, {@code decimal_below_min_value} or {@code
   *     decimal_above_max_value} naming the bound
   */
  static void check(JsonNode body, String field, int min, int max) throws BindingException {
    JsonNode v = body.get(field);
    if (v == null || v.isNull()) {
      return;
    }
    if (!v.isNumber()) {
      throw FieldRefusal.invalidType(field, "a decimal", v);
    }
    // A double holds every bound exactly; a value past a double's range reads as an infinity, on
    // the side it was written.
    double d = v.doubleValue();
    if (d < min) {
      throw FieldRefusal.decimalBelow(field, Integer.toString(min), v.asText());
    }
    if (d > max) {
      throw FieldRefusal.decimalAbove(field, Integer.toString(max), v.asText());
    }
  }
}
