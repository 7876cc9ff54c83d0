package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.meshjava.core.ContentId;

/**
 * Issue 14 item 4: the prompts "a\ud800", "a\udfff" and "a?" all derived one request id, because
 * the prompt bytes came from a lossy conversion. Text that is not well-formed Unicode is refused.
 */
class PromptUnicodeTest {
  private final Fixture f = new Fixture();

  @AfterEach
  void close() {
    f.close();
  }

  /** Every kind of ill-formed UTF-16: lone high, lone low, reversed pair, at start, middle, end. */
  static List<String> illFormed() {
    return List.of(
        "a\ud800", // lone high at the end
        "a\udfff", // lone low at the end
        "\ud800a", // lone high at the start
        "\udc00a", // lone low at the start
        "a\ud800b", // lone high in the middle
        "a\udc00b", // lone low in the middle
        "\udc00\ud800", // a pair reversed
        "\ud800\ud800\udc00", // a high, then a whole pair
        "\ud83d\ude00\udfff"); // a whole pair, then a lone low
  }

  /** A chat body whose content is {@code content}, escaped so that the wire bytes are ASCII. */
  private static String chatBody(String content) {
    return "{\"model\":\"auto\",\"max_tokens\":8,\"messages\":[{\"role\":\"user\",\"content\":"
        + quote(content)
        + "}]}";
  }

  @ParameterizedTest
  @MethodSource("illFormed")
  void prompt_withALoneSurrogate_isRefusedInEveryPlaceTextEntersIt(String bad) throws Exception {
    List<String> bodies =
        List.of(
            chatBody(bad),
            "{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":"
                + quote(bad)
                + "}]}]}",
            "{\"input\":" + quote(bad) + "}",
            "{\"instructions\":" + quote(bad) + ",\"input\":\"ok\"}",
            "{\"input\":[{\"role\":\"user\",\"content\":" + quote(bad) + "}]}");
    for (String body : bodies) {
      JsonNode json = Fixture.JSON.readTree(body);
      GrantedServeRequest.Endpoint endpoint = GrantedServeRequest.endpointOf(json);
      assertThatThrownBy(() -> GrantedServeRequest.prompt(json, endpoint))
          .as(body)
          .isInstanceOfSatisfying(
              BindingException.class,
              e -> assertThat(e.reason()).isEqualTo(BindingException.Reason.INVALID_UNICODE));
      String path =
          endpoint == GrantedServeRequest.Endpoint.CHAT_COMPLETIONS
              ? "/v1/chat/completions"
              : "/v1/responses";
      f.post(path, body).error(400, "invalid_unicode");
    }
    assertThatThrownBy(() -> new Prompt.Message("user", bad))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void prompt_theIssueExamples_areRefusedAndNoLongerShareAnIdWithAQuestionMark() throws Exception {
    f.post("/v1/chat/completions", chatBody("a\ud800")).error(400, "invalid_unicode");
    f.post("/v1/chat/completions", chatBody("a\udfff")).error(400, "invalid_unicode");
    assertThat(f.post("/v1/chat/completions", chatBody("a?")).status()).isEqualTo(200);
  }

  /**
   * A streamed body is refused as a whole one is: 400 {@code invalid_unicode} as JSON, before any
   * event, since the prompt is checked before the reply's shape is chosen.
   */
  @Test
  void streamedBody_withALoneSurrogate_isRefusedAsJsonBeforeAnyEvent() throws Exception {
    for (String bad : illFormed()) {
      String chat =
          "{\"model\":\"auto\",\"max_tokens\":8,\"stream\":true,"
              + "\"messages\":[{\"role\":\"user\",\"content\":"
              + quote(bad)
              + "}]}";
      f.post("/v1/chat/completions", chat).error(400, "invalid_unicode");
      f.post("/v1/responses", "{\"stream\":true,\"input\":" + quote(bad) + "}")
          .error(400, "invalid_unicode");
    }
  }

  @Test
  void prompt_withAWholePair_hashesItsExactUtf8() throws Exception {
    String emoji = "a\ud83d\ude00";
    Prompt p =
        GrantedServeRequest.prompt(
            Fixture.JSON.readTree(chatBody(emoji)), GrantedServeRequest.Endpoint.CHAT_COMPLETIONS);
    byte[] expected = "user 5\na\u00f0\u009f\u0098\u0080\n".getBytes(StandardCharsets.ISO_8859_1);
    assertThat(p.bytes()).isEqualTo(expected);
    assertThat(p.hash()).isEqualTo(ContentId.ofBytes(expected));
    assertThat(f.post("/v1/chat/completions", chatBody(emoji)).status()).isEqualTo(200);
  }

  /**
   * A model name enters the request id as text too, but one with a lone surrogate was looked up and
   * answered 404 {@code model_not_found}, where the same text in a prompt is refused 400 {@code
   * invalid_unicode} (and a caller deriving the id of such a body met the id encoder's {@code
   * IllegalArgumentException}). It is refused as the prompt's is, naming {@code model}.
   */
  @ParameterizedTest
  @MethodSource("illFormed")
  void model_withALoneSurrogate_isRefusedAsInvalidUnicode(String bad) throws Exception {
    String chat =
        "{\"model\":"
            + quote(bad)
            + ",\"max_tokens\":8,\"metadata\":{\"joule_ceiling_uj\":\"100000\"},"
            + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
    String responses = "{\"model\":" + quote(bad) + ",\"input\":\"hi\"}";
    JsonNode json = Fixture.JSON.readTree(chat);
    assertThatThrownBy(() -> GrantedServeRequest.derive(json))
        .isInstanceOfSatisfying(
            BindingException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(BindingException.Reason.INVALID_UNICODE);
              assertThat(e.param()).hasValue("model");
            });
    for (var sent :
        List.of(List.of("/v1/chat/completions", chat), List.of("/v1/responses", responses))) {
      JsonNode e = f.post(sent.get(0), sent.get(1)).error(400, "invalid_unicode");
      assertThat(e.get("param").asText()).isEqualTo("model");
    }
  }

  /**
   * A typed decision's question texts and options enter the request id through the decision
   * prompt's UTF-8, but were never checked: {@code "is it \ud800?"} and {@code "is it \udbff?"}
   * were both served, with one request id (so one presentation for both). Each place such text
   * rides is refused 400 {@code invalid_unicode} naming it, in both decision shapes.
   */
  @ParameterizedTest
  @MethodSource("illFormed")
  void decisionText_withALoneSurrogate_isRefusedAsInvalidUnicode(String bad) {
    String q = quote(bad);
    String chat = "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],";
    String extension = chat + "\"mesh_decision\":{\"questions\":[";
    String schema =
        "{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"x\",\"schema\":"
            + "{\"type\":\"object\",\"properties\":{\"a\":";
    List<List<String>> cases =
        List.of(
            List.of(
                "/v1/chat/completions",
                extension + "{\"kind\":\"proposition\",\"text\":" + q + "}]}}",
                "mesh_decision.questions[0].text"),
            List.of(
                "/v1/chat/completions",
                extension
                    + "{\"kind\":\"choice\",\"text\":\"t\",\"options\":[\"ok\","
                    + q
                    + "]}]}}",
                "mesh_decision.questions[0].options[1]"),
            List.of(
                "/v1/chat/completions",
                extension + "{\"kind\":\"score\",\"text\":\"t\",\"rubric\":[" + q + ",\"b\"]}]}}",
                "mesh_decision.questions[0].rubric[0]"),
            List.of(
                "/v1/responses",
                "{\"input\":\"x\",\"mesh_decision\":{\"questions\":[{\"kind\":\"proposition\","
                    + "\"text\":\"t\",\"key\":"
                    + q
                    + "}]}}",
                "mesh_decision.questions[0].key"),
            List.of(
                "/v1/chat/completions",
                chat
                    + "\"response_format\":"
                    + schema
                    + "{\"type\":\"boolean\",\"description\":"
                    + q
                    + "}}}}}}",
                "response_format.json_schema.schema.properties.a.description"),
            List.of(
                "/v1/chat/completions",
                chat
                    + "\"response_format\":"
                    + schema
                    + "{\"type\":\"string\",\"enum\":[\"b\","
                    + q
                    + "]}}}}}}",
                "response_format.json_schema.schema.properties.a.enum[1]"),
            List.of(
                "/v1/responses",
                "{\"input\":\"x\",\"text\":{\"format\":{\"type\":\"json_schema\",\"name\":\"x\","
                    + "\"schema\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\","
                    + "\"enum\":["
                    + q
                    + ",\"b\"]}}}}}}",
                "text.format.schema.properties.a.enum[0]"));
    for (List<String> c : cases) {
      JsonNode e = f.post(c.get(0), c.get(1)).error(400, "invalid_unicode");
      assertThat(e.get("param").asText()).as(c.get(1)).isEqualTo(c.get(2));
    }
  }

  /**
   * {@code GET /v1/models/{model}} with %-escapes that decode to bytes that are not well-formed
   * UTF-8 (an encoded surrogate, an overlong form, a byte that begins no character, one cut short)
   * was refused by Jetty before the API saw it: 400 {@code http_400} "Bad UTF-8 encoding", where
   * the same id escaped in a body's {@code model} is {@code invalid_unicode}. It is refused 400
   * {@code invalid_unicode} naming {@code model} now; on another path, naming nothing.
   */
  @Test
  void modelPath_thatDecodesToIllFormedUtf8_isRefusedAsInvalidUnicode() {
    for (String segment :
        List.of("%ED%A0%80", "x%ED%B0%80y", "%C0%AF", "%C3", "%FF", "a%80", "%F4%90%80%80")) {
      JsonNode e = f.get("/v1/models/" + segment).error(400, "invalid_unicode");
      assertThat(e.get("param").asText()).as(segment).isEqualTo("model");
    }
    JsonNode other = f.get("/v1/mesh/%ED%A0%80").error(400, "invalid_unicode");
    assertThat(other.get("param").isNull()).isTrue();
    // Well-formed, U+FFFD itself and a whole pair: looked up, and not found.
    f.get("/v1/models/%EF%BF%BD").error(404, "model_not_found");
    f.get("/v1/models/%F0%9F%98%80").error(404, "model_not_found");
    assertThat(f.get("/v1/models/small").status()).isEqualTo(200);
  }

  /** A JSON string literal with every non-ASCII char escaped, so lone surrogates survive. */
  private static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      b.append(c < 0x80 ? String.valueOf(c) : String.format("\\u%04x", (int) c));
    }
    return b.append('"').toString();
  }
}
