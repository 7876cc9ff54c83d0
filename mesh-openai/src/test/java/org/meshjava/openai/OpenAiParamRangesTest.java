package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A body option outside the range or JSON type OpenAI's API fixes for it is refused as that API
 * refuses it: 400 {@code invalid_request_error}, {@code param} the field, the code OpenAI gives
 * ({@code integer_below_min_value}, {@code decimal_above_max_value}, {@code invalid_type}, …) and a
 * message naming the bound. Before, {@code n} 0 or -1 was answered {@code unsupported} (telling the
 * client another server might serve it), {@code temperature} 3 was served, and every type or range
 * fault of an integer field was coded {@code invalid_field}.
 */
class OpenAiParamRangesTest {
  private static final Fixture F = new Fixture();

  @AfterAll
  static void close() {
    F.close();
  }

  @Test
  void nBelowOne_isBelowTheMinimum_notUnsupported() {
    for (String n : new String[] {"0", "-1"}) {
      refused(chat("n", n), "n", "integer_below_min_value", ">= 1, but got " + n);
    }
    refused(chat("n", "129"), "n", "integer_above_max_value", "<= 128, but got 129");
    JsonNode two = F.post("/v1/chat/completions", chat("n", "2")).error(400, "unsupported");
    assertThat(two.get("param").asText()).isEqualTo("n");
  }

  @Test
  void maxTokensOfZeroOrLess_isBelowTheMinimum() {
    for (String field : new String[] {"max_tokens", "max_completion_tokens"}) {
      for (String v : new String[] {"0", "-5"}) {
        refused(chat(field, v), field, "integer_below_min_value", ">= 1, but got " + v);
      }
    }
    refused(
        responses("max_output_tokens", "0"),
        "max_output_tokens",
        "integer_below_min_value",
        ">= 1, but got 0");
  }

  @Test
  void temperatureAndTopPOutOfRange_areRefusedNamingTheBound() {
    for (boolean chat : new boolean[] {true, false}) {
      refused(body(chat, "temperature", "2.5"), "temperature", "decimal_above_max_value", "<= 2");
      refused(body(chat, "temperature", "-0.1"), "temperature", "decimal_below_min_value", ">= 0");
      refused(body(chat, "top_p", "1.01"), "top_p", "decimal_above_max_value", "<= 1");
      refused(body(chat, "top_p", "-1"), "top_p", "decimal_below_min_value", ">= 0");
      refused(body(chat, "temperature", "1e400"), "temperature", "decimal_above_max_value", "<= 2");
    }
    ObjectNode edges = Fixture.chat("x");
    edges.put("temperature", 2).put("top_p", 0.0);
    assertThat(F.post("/v1/chat/completions", edges).status()).isEqualTo(200);
  }

  @Test
  void chatPenaltiesOutOfRangeOrType_areRefusedNamingTheBound() {
    for (String field : new String[] {"frequency_penalty", "presence_penalty"}) {
      refused(chat(field, "2.5"), field, "decimal_above_max_value", "<= 2, but got 2.5");
      refused(chat(field, "-3"), field, "decimal_below_min_value", ">= -2, but got -3");
      refused(chat(field, "\"1\""), field, "invalid_type", "expected a decimal");
      refused(chat(field, "{\"odd\":[true]}"), field, "invalid_type", "but got an object");
    }
    ObjectNode edges = Fixture.chat("x");
    edges.put("frequency_penalty", -2).put("presence_penalty", 2.0);
    assertThat(F.post("/v1/chat/completions", edges).status()).isEqualTo(200);
    ObjectNode nulls = Fixture.chat("x");
    nulls.putNull("frequency_penalty").putNull("presence_penalty");
    assertThat(F.post("/v1/chat/completions", nulls).status()).isEqualTo(200);
  }

  @Test
  void logprobsShapes_areOpenAisRefusals() {
    refused(chat("top_logprobs", "21"), "top_logprobs", "integer_above_max_value", "<= 20");
    refused(chat("top_logprobs", "-1"), "top_logprobs", "integer_below_min_value", ">= 0");
    refused(responses("top_logprobs", "21"), "top_logprobs", "integer_above_max_value", "<= 20");
    refused(chat("logprobs", "\"true\""), "logprobs", "invalid_type", "a boolean");
    // Above 0 without logprobs true it is a body OpenAI refuses, not an option unserved.
    JsonNode alone =
        F.post("/v1/chat/completions", chat("top_logprobs", "3")).error(400, "invalid_field");
    assertThat(alone.get("param").asText()).isEqualTo("top_logprobs");
    assertThat(alone.get("type").asText()).isEqualTo("invalid_request_error");
    // With logprobs true the body is OpenAI's, and what it asks is not served here.
    ObjectNode asked = Fixture.chat("x");
    asked.put("logprobs", true).put("top_logprobs", 3);
    JsonNode unserved = F.post("/v1/chat/completions", asked).error(400, "unsupported");
    assertThat(unserved.get("param").asText()).isEqualTo("logprobs");
  }

  @Test
  void wrongJsonTypes_areInvalidType_namingWhatWasExpectedAndGot() {
    refused(chat("n", "\"1\""), "n", "invalid_type", "expected an integer, but got a string");
    refused(chat("n", "1.5"), "n", "invalid_type", "but got a decimal number");
    refused(chat("max_tokens", "true"), "max_tokens", "invalid_type", "but got a boolean");
    refused(chat("seed", "[1]"), "seed", "invalid_type", "but got an array");
    refused(
        chat("temperature", "\"0.5\""),
        "temperature",
        "invalid_type",
        "expected a decimal, but got a string");
    refused(chat("top_p", "{}"), "top_p", "invalid_type", "but got an object");
    refused(
        responses("max_output_tokens", "8.0"),
        "max_output_tokens",
        "invalid_type",
        "but got a decimal number");
  }

  private static String body(boolean chat, String field, String value) {
    return chat ? chat(field, value) : responses(field, value);
  }

  private static String chat(String field, String value) {
    return withField(Fixture.chat("x"), field, value);
  }

  private static String responses(String field, String value) {
    ObjectNode body = Fixture.JSON.createObjectNode();
    body.put("model", "auto");
    body.put("input", "x");
    body.put("max_output_tokens", 8);
    return withField(body, field, value);
  }

  /** {@code body} with {@code field} set to the JSON text {@code value}, written as it is. */
  private static String withField(ObjectNode body, String field, String value) {
    body.remove(field);
    String json = body.toString();
    return json.substring(0, json.length() - 1) + ",\"" + field + "\":" + value + "}";
  }

  private static void refused(String body, String param, String code, String inMessage) {
    String path = body.contains("\"input\"") ? "/v1/responses" : "/v1/chat/completions";
    JsonNode e = F.post(path, body).error(400, code);
    assertThat(e.get("type").asText()).as(body).isEqualTo("invalid_request_error");
    assertThat(e.get("param").asText()).as(body).isEqualTo(param);
    assertThat(e.get("message").asText()).as(body).contains(inMessage);
  }
}
