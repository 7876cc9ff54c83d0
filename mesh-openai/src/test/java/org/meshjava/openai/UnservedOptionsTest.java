package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Options that change what a correct reply is, which no backend honours, are refused by name with
 * 400 {@code unsupported} rather than ignored; the same options at their defaults are served. The
 * official SDKs send exactly these fields (the Node SDK's {@code models.retrieve} is covered here
 * too).
 */
class UnservedOptionsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Fixture f = new Fixture();

  @AfterEach
  void close() {
    f.close();
  }

  @Test
  void chatOptionsNoBackendHonours_areRefusedByName() throws Exception {
    Map<String, String> refused =
        Map.ofEntries(
            Map.entry("n", "2"),
            Map.entry("tools", "[{\"type\":\"function\",\"function\":{\"name\":\"f\"}}]"),
            Map.entry("tool_choice", "\"required\""),
            Map.entry("functions", "[{\"name\":\"f\"}]"),
            Map.entry("function_call", "{\"name\":\"f\"}"),
            Map.entry("stop", "[\"\\n\"]"),
            Map.entry("logprobs", "true"),
            Map.entry("audio", "{\"voice\":\"alloy\",\"format\":\"wav\"}"),
            Map.entry("modalities", "[\"text\",\"audio\"]"),
            // What the Node SDK sends for web_search_options: {} (search with the defaults).
            Map.entry("web_search_options", "{}"));
    for (var option : refused.entrySet()) {
      ObjectNode body = Fixture.chat("x");
      body.set(option.getKey(), JSON.readTree(option.getValue()));
      JsonNode e = f.post("/v1/chat/completions", body).error(400, "unsupported");
      assertThat(e.get("param").asText()).as(option.getKey()).isEqualTo(option.getKey());
      assertThat(e.get("message").asText()).startsWith(option.getKey() + ": ");
    }
    // top_logprobs above 0 without logprobs true is a body OpenAI refuses (OpenAiParamRangesTest);
    // with logprobs true, logprobs is the option refused above.
    ObjectNode top = Fixture.chat("x");
    top.set("top_logprobs", JSON.readTree("3"));
    JsonNode e = f.post("/v1/chat/completions", top).error(400, "invalid_field");
    assertThat(e.get("param").asText()).isEqualTo("top_logprobs");
  }

  @Test
  void chatOptionsAtTheirDefaults_areServed() throws Exception {
    ObjectNode body = Fixture.chat("x");
    body.set("n", JSON.readTree("1")); // what LangChain's ChatOpenAI sends
    body.set("tools", JSON.readTree("[]"));
    body.set("tool_choice", JSON.readTree("null"));
    body.set("stop", JSON.readTree("null"));
    body.set("logprobs", JSON.readTree("false"));
    body.set("top_logprobs", JSON.readTree("0"));
    body.set("modalities", JSON.readTree("[\"text\"]"));
    body.set("parallel_tool_calls", JSON.readTree("null"));
    body.set("web_search_options", JSON.readTree("null"));
    body.put("temperature", 0.7);
    assertThat(f.post("/v1/chat/completions", body).status()).isEqualTo(200);
  }

  /**
   * Regression: a chat body's {@code tool_choice} ({@code "none"}, {@code "auto"}) and {@code
   * parallel_tool_calls} were served with no tools, where OpenAI's chat completions refuse both
   * without tools (400 naming the field): a client that works here failed on the API it imitates. A
   * responses body, which OpenAI serves with these and no tools, keeps them.
   */
  @Test
  void chatToolSettingsWithoutTools_areRefusedAsOpenAiRefusesThem() throws Exception {
    for (String tools : new String[] {"absent", "null", "[]"}) {
      for (var option :
          Map.of(
                  "tool_choice", "\"none\"",
                  "parallel_tool_calls", "false")
              .entrySet()) {
        ObjectNode body = Fixture.chat("x");
        if (!tools.equals("absent")) {
          body.set("tools", JSON.readTree(tools));
        }
        body.set(option.getKey(), JSON.readTree(option.getValue()));
        JsonNode e = f.post("/v1/chat/completions", body).error(400, "invalid_field");
        assertThat(e.get("param").asText()).isEqualTo(option.getKey());
        assertThat(e.get("message").asText()).contains("only allowed beside tools");
      }
    }
    ObjectNode responses = JSON.createObjectNode().put("input", "x");
    responses.put("tool_choice", "auto");
    responses.put("parallel_tool_calls", true);
    assertThat(f.post("/v1/responses", responses).status()).isEqualTo(200);
  }

  /**
   * Regression: a message's {@code name}, an assistant's {@code tool_calls} and {@code
   * function_call}, a {@code tool_call_id} and messages of role {@code tool} or {@code function}
   * were served as if absent (a named speaker as unnamed, a tool conversation without its calls),
   * while {@code tools} and {@code functions} on the body are refused. They are refused the same
   * way, naming the message and field; at their defaults (null, an empty {@code tool_calls}) they
   * are served.
   */
  @Test
  void chatMessageFieldsNoBackendHonours_areRefusedNamingTheMessageAndField() throws Exception {
    String user = "{\"role\":\"user\",\"content\":\"x\"}";
    String call = "[{\"id\":\"c1\",\"type\":\"function\",\"function\":{\"name\":\"f\"}}]";
    Map<String, String> refused =
        Map.of(
            "messages[0].name",
            "[{\"role\":\"user\",\"content\":\"x\",\"name\":\"ada\"}]",
            "messages[1].tool_calls",
            "[" + user + ",{\"role\":\"assistant\",\"content\":null,\"tool_calls\":" + call + "}]",
            "messages[1].function_call",
            "["
                + user
                + ",{\"role\":\"assistant\",\"function_call\":{\"name\":\"f\",\"arguments\":\"{}\"}}]",
            "messages[1].role",
            "[" + user + ",{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"42\"}]",
            "messages[0].role",
            "[{\"role\":\"function\",\"name\":\"f\",\"content\":\"42\"}]",
            "messages[0].tool_call_id",
            "[{\"role\":\"user\",\"content\":\"x\",\"tool_call_id\":\"c1\"}]");
    for (var field : refused.entrySet()) {
      ObjectNode body = Fixture.chat("x");
      body.set("messages", JSON.readTree(field.getValue()));
      JsonNode e = f.post("/v1/chat/completions", body).error(400, "unsupported");
      assertThat(e.get("param").asText()).as(field.getValue()).isEqualTo(field.getKey());
      assertThat(e.get("message").asText()).startsWith(field.getKey() + ": ");
    }
    ObjectNode fine = Fixture.chat("x");
    fine.set(
        "messages",
        JSON.readTree(
            "[{\"role\":\"user\",\"content\":\"x\",\"name\":null},"
                + "{\"role\":\"assistant\",\"content\":\"y\",\"tool_calls\":[]},"
                + user
                + "]"));
    assertThat(f.post("/v1/chat/completions", fine).status()).isEqualTo(200);
  }

  /**
   * Regression: the chat refusals of a message's tool fields, tool roles and {@code name} did not
   * reach the responses endpoint, whose {@code input} array holds messages as chat's {@code
   * messages} does: a tool result sent as a {@code tool} message, or a named speaker, was served
   * with the role or name dropped from what the receipt vouches for. Refused the same way, naming
   * the input item and field.
   */
  @Test
  void responsesInputMessageFieldsNoBackendHonours_areRefusedNamingTheItemAndField()
      throws Exception {
    String user = "{\"role\":\"user\",\"content\":\"x\"}";
    Map<String, String> refused =
        Map.of(
            "input[0].name",
            "[{\"role\":\"user\",\"content\":\"x\",\"name\":\"ada\"}]",
            "input[1].role",
            "[" + user + ",{\"role\":\"tool\",\"tool_call_id\":\"c1\",\"content\":\"42\"}]",
            "input[0].tool_call_id",
            "[{\"type\":\"message\",\"role\":\"user\",\"content\":\"x\",\"tool_call_id\":\"c\"}]");
    for (var field : refused.entrySet()) {
      ObjectNode body = JSON.createObjectNode();
      body.set("input", JSON.readTree(field.getValue()));
      JsonNode e = f.post("/v1/responses", body).error(400, "unsupported");
      assertThat(e.get("param").asText()).as(field.getValue()).isEqualTo(field.getKey());
      assertThat(e.get("message").asText()).startsWith(field.getKey() + ": ");
    }
    ObjectNode fine = JSON.createObjectNode();
    fine.set("input", JSON.readTree("[{\"role\":\"user\",\"content\":\"x\",\"name\":null}]"));
    assertThat(f.post("/v1/responses", fine).status()).isEqualTo(200);
  }

  @Test
  void responsesOptionsNoBackendHonours_areRefusedByName() throws Exception {
    Map<String, String> refused =
        Map.of(
            "previous_response_id", "\"resp_123\"",
            "conversation", "\"conv_123\"",
            "prompt", "{\"id\":\"pmpt_123\"}",
            "background", "true",
            "tools", "[{\"type\":\"web_search\"}]",
            "tool_choice", "\"required\"",
            "top_logprobs", "2",
            "include", "[\"reasoning.encrypted_content\", \"message.output_text.logprobs\"]");
    for (var option : refused.entrySet()) {
      ObjectNode body = JSON.createObjectNode().put("input", "x");
      body.set(option.getKey(), JSON.readTree(option.getValue()));
      JsonNode e = f.post("/v1/responses", body).error(400, "unsupported");
      assertThat(e.get("param").asText()).as(option.getKey()).isEqualTo(option.getKey());
    }
    ObjectNode fine = JSON.createObjectNode().put("input", "x");
    fine.putNull("previous_response_id");
    fine.put("background", false);
    fine.set("tools", JSON.readTree("[]"));
    fine.set("include", JSON.readTree("[\"reasoning.encrypted_content\"]"));
    assertThat(f.post("/v1/responses", fine).status()).isEqualTo(200);
  }

  /**
   * {@code include} that was not an array was skipped, so {@code "include":
   * "message.output_text.logprobs"} (a bare string, as a hand-written client might send it) was
   * served without the log probabilities it asks for. Any shape but an array of strings is refused,
   * naming the field.
   */
  @Test
  void responsesInclude_ofAnotherShape_isRefusedNamingIt() throws Exception {
    for (String include :
        new String[] {
          "\"message.output_text.logprobs\"",
          "{\"a\":\"message.output_text.logprobs\"}",
          "5",
          "[null]",
          "[[\"message.output_text.logprobs\"]]"
        }) {
      ObjectNode body = JSON.createObjectNode().put("input", "x");
      body.set("include", JSON.readTree(include));
      JsonNode e = f.post("/v1/responses", body).error(400, "invalid_field");
      assertThat(e.get("param").asText()).as(include).isEqualTo("include");
    }
    ObjectNode none = JSON.createObjectNode().put("input", "x");
    none.putNull("include");
    assertThat(f.post("/v1/responses", none).status()).isEqualTo(200);
  }

  @Test
  void retrievingAModel_answersItsEntryOfTheList_or404ModelNotFound() {
    JsonNode list = f.get("/v1/models").json().get("data");
    for (JsonNode m : list) {
      Fixture.Answer one = f.get("/v1/models/" + m.get("id").asText());
      assertThat(one.status()).isEqualTo(200);
      assertThat(one.json()).isEqualTo(m);
    }
    JsonNode e = f.get("/v1/models/nope").error(404, "model_not_found");
    assertThat(e.get("param").asText()).isEqualTo("model");
    f.post("/v1/models/small", "{}").error(405, "method_not_allowed");
  }
}
