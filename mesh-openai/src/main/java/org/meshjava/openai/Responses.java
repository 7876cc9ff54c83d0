package org.meshjava.openai;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ServeOutcome;
import org.meshjava.router.RouteDecision;
import org.meshjava.steward.ServeResult;

/**
 * Responses API replies in OpenAI's wire format, whole or as a stream of named events: {@code
 * response.created}, {@code response.output_item.added}, {@code response.content_part.added} (made
 * once the steward has routed, sent with the first piece of text), {@code
 * response.output_text.delta} per piece of text as the engine produces tokens, {@code
 * response.output_text.done}, {@code response.content_part.done}, {@code
 * response.output_item.done}, then {@code response.completed} (or {@code response.incomplete} when
 * {@code max_output_tokens} cut the output) whose response's {@code usage} carries the energy and
 * receipt.
 *
 * <p>Every response object has the fields OpenAI's always has, which its SDKs require: besides the
 * output and status, the request's {@code instructions} and {@code metadata} repeated (null when it
 * had none), {@code tools} empty, {@code tool_choice} {@code "none"} and {@code
 * parallel_tool_calls} false (no backend here calls tools; a request that asks is refused), and
 * {@code temperature} and {@code top_p} null (sampling is the backend's own, SPEC.md 70). Text
 * events carry an empty {@code logprobs}, as log probabilities are not reported.
 */
final class Responses {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private Responses() {}

  /**
   * @param request the request's body, whose {@code instructions} and {@code metadata} the response
   *     repeats
   * @param decision a typed decision's {@code mesh_decision}, last in the reply, if one was asked
   */
  static Reply.Json reply(
      JsonNode request,
      ServeResult result,
      String text,
      boolean cut,
      long created,
      Optional<JsonNode> decision) {
    String hex = result.envelope().id().hex();
    ObjectNode done =
        done(
            request,
            result,
            "resp_" + hex.substring(0, 32),
            "msg_" + hex.substring(32),
            text,
            cut,
            created);
    decision.ifPresent(d -> done.set("mesh_decision", d));
    return new Reply.Json(200, done);
  }

  /**
   * The message's own status: a message cut by {@code max_output_tokens} is {@code incomplete}, as
   * its response is, so a client that reads the item (or replays it as input) is not told a cut
   * text is whole.
   */
  private static String itemStatus(boolean cut) {
    return cut ? "incomplete" : "completed";
  }

  private static ObjectNode done(
      JsonNode request,
      ServeResult result,
      String id,
      String itemId,
      String text,
      boolean cut,
      long created) {
    String model = result.route().chosenCandidate().backend(); // as registered and sealed
    ObjectNode done = response(request, id, created, model, cut ? "incomplete" : "completed", cut);
    ArrayNode output = done.putArray("output");
    output.add(item(itemId, itemStatus(cut), text));
    done.set("usage", EnergyUsage.usage(result, Responses::tokens));
    return done;
  }

  /** A response streamed as the serve produces it. */
  static final class Stream extends StreamedReply {
    private final JsonNode request;
    private int seq;
    private String model = "";

    /**
     * @param request the request's body, whose {@code instructions} and {@code metadata} each
     *     response object repeats
     */
    Stream(JsonNode request, Reply.Channel channel, long created) {
      super(channel, created);
      this.request = request;
    }

    private String responseId() {
      return "resp_" + id;
    }

    private String itemId() {
      return "msg_" + id;
    }

    @Override
    protected void opening(RouteDecision route) {
      model = route.chosenCandidate().backend(); // as registered and sealed
      ObjectNode started = response(request, responseId(), created, model, "in_progress", false);
      started.putArray("output");
      started.putNull("usage");
      ObjectNode e = event("response.created");
      e.set("response", started);
      send(wire(e));
      e = event("response.output_item.added");
      e.put("output_index", 0);
      e.set("item", item(itemId(), "in_progress", null));
      send(wire(e));
      e = event("response.content_part.added");
      e.put("item_id", itemId()).put("output_index", 0).put("content_index", 0);
      e.set("part", part(""));
      send(wire(e));
    }

    @Override
    boolean delta(String piece) {
      if (piece.isEmpty()) {
        return alive();
      }
      ObjectNode e = event("response.output_text.delta");
      e.put("item_id", itemId()).put("output_index", 0).put("content_index", 0).put("delta", piece);
      e.putArray("logprobs");
      return send(wire(e));
    }

    @Override
    void finish(ServeResult result, String rest, String text, boolean cut) {
      delta(rest);
      ObjectNode e = event("response.output_text.done");
      e.put("item_id", itemId()).put("output_index", 0).put("content_index", 0).put("text", text);
      e.putArray("logprobs");
      send(wire(e));
      e = event("response.content_part.done");
      e.put("item_id", itemId()).put("output_index", 0).put("content_index", 0);
      e.set("part", part(text));
      send(wire(e));
      e = event("response.output_item.done");
      e.put("output_index", 0);
      e.set("item", item(itemId(), itemStatus(cut), text));
      send(wire(e));
      e = event(cut ? "response.incomplete" : "response.completed");
      e.set("response", done(request, result, responseId(), itemId(), text, cut, created));
      send(wire(e));
    }

    @Override
    void fail(ObjectNode error) {
      ObjectNode e = event("error");
      ObjectNode inner = (ObjectNode) error.get("error");
      e.set("code", inner.get("code"));
      e.set("message", inner.get("message"));
      e.set("param", inner.get("param"));
      send(wire(e));
    }

    private ObjectNode event(String type) {
      ObjectNode e = NODES.objectNode();
      e.put("type", type);
      e.put("sequence_number", seq++);
      return e;
    }
  }

  private static ObjectNode response(
      JsonNode request, String id, long created, String model, String status, boolean cut) {
    ObjectNode r = NODES.objectNode();
    r.put("id", id);
    r.put("object", "response");
    r.put("created_at", created);
    r.put("status", status);
    r.put("model", model);
    if (cut) {
      r.putObject("incomplete_details").put("reason", "max_output_tokens");
    } else {
      r.putNull("incomplete_details");
    }
    r.putNull("error");
    r.set("instructions", repeated(request, "instructions"));
    r.set("metadata", repeated(request, "metadata"));
    r.putArray("tools");
    r.put("tool_choice", "none");
    r.put("parallel_tool_calls", false);
    r.putNull("temperature");
    r.putNull("top_p");
    // Nothing is kept to retrieve (GET /v1/responses/{id} is no endpoint), whatever the request's
    // store says: OpenAI's default is to store, so a client reading this field learns the truth.
    r.put("store", false);
    return r;
  }

  /** The request's {@code field} as it was sent, or JSON null when it sent none. */
  private static JsonNode repeated(JsonNode request, String field) {
    JsonNode v = request.get(field);
    return v == null ? NODES.nullNode() : v.deepCopy();
  }

  private static ObjectNode item(String itemId, String status, @Nullable String text) {
    ObjectNode item = NODES.objectNode();
    item.put("type", "message");
    item.put("id", itemId);
    item.put("status", status);
    item.put("role", "assistant");
    ArrayNode content = item.putArray("content");
    if (text != null) {
      content.add(part(text));
    }
    return item;
  }

  private static ObjectNode part(String text) {
    ObjectNode p = NODES.objectNode();
    p.put("type", "output_text");
    p.put("text", text);
    p.putArray("annotations");
    p.putArray("logprobs");
    return p;
  }

  /**
   * A response's token fields in {@code usage}, each count followed by its details: no cached
   * tokens in, none written to a cache, no reasoning tokens out.
   */
  private static void tokens(JsonGenerator g, ServeOutcome outcome) throws IOException {
    g.writeNumberField("input_tokens", outcome.tokensIn());
    g.writeObjectFieldStart("input_tokens_details");
    g.writeNumberField("cached_tokens", 0);
    g.writeNumberField("cache_write_tokens", 0);
    g.writeEndObject();
    g.writeNumberField("output_tokens", outcome.tokensOut());
    g.writeObjectFieldStart("output_tokens_details");
    g.writeNumberField("reasoning_tokens", 0);
    g.writeEndObject();
  }

  private static Reply.Event wire(ObjectNode e) {
    return Reply.Event.json(Optional.of(e.get("type").asText()), e);
  }
}
