package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A field OpenAI's API types as an integer is refused there when sent as a decimal, {@code 1.0}
 * included: 400 {@code invalid_request_error} naming it. Here {@code "n": 1.0} and {@code
 * "top_logprobs": 0.0} were served (read as numbers equal to a whole one), {@code "seed": 1.5} was
 * not read at all, and {@code "max_tokens": 1.0} was refused: one body, three readings. Every
 * integer field is now read by one reader, which refuses a decimal or an exponent (a JSON number
 * with a fraction or exponent part) with 400 naming the field, coded as OpenAI codes it: {@code
 * invalid_type}, or for a whole number past 64 bits {@code integer_above_max_value} or {@code
 * integer_below_min_value}.
 */
class WholeNumberFieldsTest {
  private final Fixture f = new Fixture();

  @AfterEach
  void close() {
    f.close();
  }

  /** Each integer field of a chat body with a value this server serves when sent as an integer. */
  private static final Map<String, Long> CHAT =
      Map.of(
          "n", 1L,
          "max_tokens", 8L,
          "max_completion_tokens", 8L,
          "seed", 7L,
          "top_logprobs", 0L);

  private static final Map<String, Long> RESPONSES =
      Map.of("max_output_tokens", 8L, "top_logprobs", 0L, "max_tool_calls", 1L);

  /** The same value as JSON decimals: a fraction part, an exponent, both. */
  private static List<String> decimals(long whole) {
    return List.of(whole + ".0", whole + "e0", whole + "E+0", whole + ".00e0");
  }

  @Test
  void chat_integerFieldsSentAsDecimals_areRefusedNamingTheField() throws Exception {
    for (var field : CHAT.entrySet()) {
      for (String decimal : decimals(field.getValue())) {
        String body = withField(Fixture.chat("x"), field.getKey(), decimal);
        refused(f.post("/v1/chat/completions", body), field.getKey(), decimal);
      }
    }
  }

  @Test
  void responses_integerFieldsSentAsDecimals_areRefusedNamingTheField() throws Exception {
    for (var field : RESPONSES.entrySet()) {
      for (String decimal : decimals(field.getValue())) {
        String body = withField(responses("x"), field.getKey(), decimal);
        refused(f.post("/v1/responses", body), field.getKey(), decimal);
      }
    }
  }

  @Test
  void integerFieldsSentAsIntegers_areServed() throws Exception {
    ObjectNode chat = Fixture.chat("x");
    CHAT.forEach(chat::put);
    assertThat(f.post("/v1/chat/completions", chat).status()).isEqualTo(200);
    ObjectNode responses = responses("x");
    RESPONSES.forEach(responses::put);
    assertThat(f.post("/v1/responses", responses).status()).isEqualTo(200);
  }

  @Test
  void integerFieldsOfTheWrongType_areRefusedNamingTheField() throws Exception {
    for (String field : CHAT.keySet()) {
      for (String wrong : List.of("\"1\"", "true", "[1]", "1.5")) {
        String body = withField(Fixture.chat("x"), field, wrong);
        refused(f.post("/v1/chat/completions", body), field, wrong);
      }
    }
  }

  /**
   * Numbers a hostile client writes where an integer is expected: past a double's range ({@code
   * 1e400}, which a lenient reader takes as infinity), below its precision ({@code 1e-400}, zero),
   * past 64 bits, and negative zero, which is the integer 0 and refused as any 0 is (out of range
   * for {@code max_tokens}; for {@code n}, {@code unsupported}). None is served, none is a 500.
   */
  @Test
  void numbersAtTheEdgesOfTheirTypes_areRefusedNamingTheField() throws Exception {
    for (String field : List.of("max_tokens", "n")) {
      for (String edge : List.of("1e400", "-1e400", "1e-400")) {
        String body = withField(Fixture.chat("x"), field, edge);
        refused(f.post("/v1/chat/completions", body), field, edge);
      }
      refused(
          f.post(
              "/v1/chat/completions", withField(Fixture.chat("x"), field, "9223372036854775808")),
          field,
          "9223372036854775808",
          "integer_above_max_value");
      refused(
          f.post(
              "/v1/chat/completions", withField(Fixture.chat("x"), field, "-9223372036854775809")),
          field,
          "-9223372036854775809",
          "integer_below_min_value");
      // Negative zero is the integer 0, below the minimum of both (n's too: not unsupported).
      refused(
          f.post("/v1/chat/completions", withField(Fixture.chat("x"), field, "-0")),
          field,
          "-0",
          "integer_below_min_value");
    }
  }

  private static ObjectNode responses(String input) {
    ObjectNode body = Fixture.JSON.createObjectNode();
    body.put("model", "auto");
    body.put("input", input);
    body.put("max_output_tokens", 8);
    return body;
  }

  /** {@code body} with {@code field} set to the JSON text {@code value}, written as it is. */
  private static String withField(ObjectNode body, String field, String value) {
    body.remove(field);
    String json = body.toString();
    return json.substring(0, json.length() - 1) + ",\"" + field + "\":" + value + "}";
  }

  private static void refused(Fixture.Answer a, String field, String value) {
    refused(a, field, value, "invalid_type");
  }

  private static void refused(Fixture.Answer a, String field, String value, String code) {
    JsonNode e = a.error(400, code);
    assertThat(e.get("type").asText()).isEqualTo("invalid_request_error");
    assertThat(e.get("param").asText()).as(field + ": " + value).isEqualTo(field);
    assertThat(e.get("message").asText()).as(field + ": " + value).contains("'" + field + "'");
  }
}
