package org.meshjava.openai;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigInteger;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.MalformedGrantException;
import org.meshjava.jcp.Presentation;

/**
 * The JSON a client posts to {@code /v1/chat/completions} or {@code /v1/responses}, taken through
 * every step the server takes before it routes the request (stream settings, the presentation, the
 * served request, the options it does not serve, the prompt text, a typed decision): the only
 * refusal is a {@link BindingException}, which the server answers 400. In this package because
 * those steps are the binding's own.
 *
 * <p>{@link #body} mutates bytes; {@link #built} writes an object from the fields the binding reads
 * (their names, and the names and words of their values: roles, part types, schema types), nested a
 * few levels, so that inputs reach past the first missing field.
 */
class ServedBodyFuzzTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final List<String> KEYS =
      List.of(
          "model",
          "messages",
          "input",
          "instructions",
          "role",
          "content",
          "type",
          "text",
          "max_tokens",
          "max_completion_tokens",
          "max_output_tokens",
          "metadata",
          "joule_ceiling_uj",
          "fidelity_floor",
          "prompt_tokens",
          "jcp_presentation",
          "stream",
          "stream_options",
          "include_usage",
          "n",
          "stop",
          "seed",
          "tools",
          "tool_choice",
          "response_format",
          "json_schema",
          "schema",
          "format",
          "mesh_decision",
          "questions",
          "question",
          "key",
          "kind",
          "options",
          "answer",
          "answers",
          "proposition",
          "rubric",
          "properties",
          "required",
          "enum",
          "title",
          "description",
          "logprobs",
          "top_logprobs",
          "include",
          "previous_response_id",
          "background",
          "conversation",
          "audio",
          "modalities",
          "name",
          "tool_calls",
          "tool_call_id",
          "function_call",
          "functions",
          "parallel_tool_calls",
          "max_tool_calls",
          "web_search_options",
          "prompt",
          "probabilities",
          "score");

  private static final List<String> WORDS =
      List.of(
          "auto",
          "user",
          "system",
          "assistant",
          "developer",
          "tool",
          "message",
          "input_text",
          "output_text",
          "text",
          "json_schema",
          "json_object",
          "object",
          "boolean",
          "string",
          "choice",
          "score",
          "F0",
          "F1",
          "F2",
          "F3",
          "F4",
          "none",
          "required",
          "1000000",
          "");

  @FuzzTest(maxDuration = "60s")
  void body(byte[] input) {
    served(input);
  }

  @FuzzTest(maxDuration = "120s")
  void built(FuzzedDataProvider data) throws Exception {
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    if (data.consumeBoolean()) {
      ArrayNode messages = body.putArray("messages");
      messages.addObject().put("role", "user").put("content", "Hi.");
    } else {
      body.put("input", "Hi.");
    }
    fill(body, data, 3);
    served(JSON.writeValueAsBytes(body));
  }

  /** The server's steps for a body, at both endpoints. */
  private static void served(byte[] bytes) {
    for (GrantedServeRequest.Endpoint endpoint : GrantedServeRequest.Endpoint.values()) {
      try {
        JsonNode body = GrantedServeRequest.parseBody(bytes);
        var unusedSettings = StreamSettings.of(body, endpoint);
        Optional<String> hex = GrantedServeRequest.presentationHex(body);
        if (hex.isPresent()) {
          try {
            var unusedPresentation = Presentation.fromHex(hex.get());
          } catch (MalformedGrantException e) {
            continue;
          }
        }
        ServeRequest unusedRequest =
            GrantedServeRequest.derive(
                body, endpoint, hex.isPresent() ? OptionalLong.empty() : OptionalLong.of(1000));
        UnservedOptions.check(body, endpoint);
        Prompt asked = GrantedServeRequest.prompt(body, endpoint);
        var unusedText = PromptText.of(asked.bytes());
        Optional<DecisionBody> decision = DecisionBody.of(body, endpoint);
        UnservedOptions.refuseStreamedDecision(body, decision.isPresent());
      } catch (BindingException refused) {
        // The documented answer to a bad body: 400 with its reason.
      } catch (RuntimeException | StackOverflowError | OutOfMemoryError e) {
        throw new AssertionError("undocumented failure at " + endpoint + ": " + e, e);
      }
    }
  }

  /** Adds up to four fields the binding knows to {@code o}, values nested {@code depth} deep. */
  private static void fill(ObjectNode o, FuzzedDataProvider data, int depth) {
    int fields = data.consumeInt(0, 4);
    for (int i = 0; i < fields; i++) {
      o.set(data.pickValue(KEYS), value(data, depth));
    }
  }

  private static JsonNode value(FuzzedDataProvider data, int depth) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    switch (data.consumeInt(0, depth > 0 ? 9 : 6)) {
      case 0:
        return f.textNode(data.pickValue(WORDS));
      case 1:
        return f.textNode(data.consumeString(24));
      case 2:
        return f.numberNode(data.consumeLong());
      case 3:
        return f.numberNode(
            BigInteger.valueOf(data.consumeLong()).shiftLeft(data.consumeInt(0, 70)));
      case 4:
        return f.numberNode(data.consumeDouble());
      case 5:
        return f.booleanNode(data.consumeBoolean());
      case 6:
        return f.nullNode();
      case 7:
      case 8:
        ObjectNode o = f.objectNode();
        fill(o, data, depth - 1);
        return o;
      default:
        ArrayNode a = f.arrayNode();
        int items = data.consumeInt(0, 3);
        for (int i = 0; i < items; i++) {
          a.add(value(data, depth - 1));
        }
        return a;
    }
  }
}
