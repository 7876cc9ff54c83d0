package org.meshjava.openai;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Optional;
import org.meshjava.core.ServeOutcome;
import org.meshjava.router.RouteDecision;
import org.meshjava.steward.ServeResult;

/**
 * Chat completion replies in OpenAI's wire format, whole or as a stream. A stream is: a chunk with
 * the assistant role (made once the steward has routed, sent with the first piece of content), a
 * chunk per piece of content as the engine produces tokens, a chunk with the finish reason, then
 * {@code [DONE]}. The energy and receipt ride on the finishing chunk as {@code energy}, or, when
 * the client asked for usage, in a last chunk with no choices as {@code usage.energy} (see {@link
 * Stream}).
 */
final class Completions {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private Completions() {}

  /**
   * A whole chat completion, written straight to bytes when rendered ({@link WrittenJson}): one is
   * rendered per serve, and its tree cost as much to build as to write.
   *
   * @param decision a typed decision's {@code mesh_decision}, last in the reply, if one was asked
   */
  static Reply.Json reply(
      ServeResult result, String text, boolean cut, long created, Optional<JsonNode> decision) {
    String id = "chatcmpl-" + result.envelope().id().hex().substring(0, 32);
    String model = result.route().chosenCandidate().backend(); // as registered and sealed
    return new Reply.Json(
        200,
        WrittenJson.node(
            (g, serializers) -> {
              g.writeStartObject();
              g.writeStringField("id", id);
              g.writeStringField("object", "chat.completion");
              g.writeNumberField("created", created);
              g.writeStringField("model", model);
              g.writeNullField("system_fingerprint");
              g.writeArrayFieldStart("choices");
              g.writeStartObject();
              g.writeNumberField("index", 0);
              g.writeObjectFieldStart("message");
              g.writeStringField("role", "assistant");
              g.writeStringField("content", text);
              g.writeEndObject();
              g.writeNullField("logprobs");
              g.writeStringField("finish_reason", cut ? "length" : "stop");
              g.writeEndObject();
              g.writeEndArray();
              g.writeFieldName("usage");
              EnergyUsage.writeUsage(g, result, Completions::tokens);
              if (decision.isPresent()) {
                g.writeFieldName("mesh_decision");
                decision.get().serialize(g, serializers);
              }
              g.writeEndObject();
            }));
  }

  /** A chat completion streamed as the serve produces it. */
  static final class Stream extends StreamedReply {
    private final boolean usageChunk;
    private String model = "";

    /**
     * @param usageChunk whether the client asked for {@code stream_options.include_usage}: then the
     *     usage, receipt and all, comes in a chunk of its own with no choices, as OpenAI sends it.
     *     Otherwise every chunk has a choice, as from OpenAI (the loop in OpenAI's own examples
     *     reads {@code choices[0]} of each, and failed on a chunk without), and the receipt rides
     *     on the chunk with the finish reason as {@code energy}: not as {@code usage}, which the
     *     SDKs' stream accumulators take to mean the choiceless last chunk
     */
    Stream(Reply.Channel channel, long created, boolean usageChunk) {
      super(channel, created);
      this.usageChunk = usageChunk;
    }

    private String id() {
      return "chatcmpl-" + id;
    }

    @Override
    protected void opening(RouteDecision route) {
      model = route.chosenCandidate().backend(); // as registered and sealed
      ObjectNode first = head(id(), "chat.completion.chunk", created, model);
      ObjectNode c0 = first.putArray("choices").addObject();
      c0.put("index", 0);
      c0.putObject("delta").put("role", "assistant").put("content", "");
      c0.putNull("finish_reason");
      send(event(first));
    }

    @Override
    boolean delta(String piece) {
      if (piece.isEmpty()) {
        return alive();
      }
      ObjectNode chunk = head(id(), "chat.completion.chunk", created, model);
      ObjectNode c = chunk.putArray("choices").addObject();
      c.put("index", 0);
      c.putObject("delta").put("content", piece);
      c.putNull("finish_reason");
      return send(event(chunk));
    }

    @Override
    void finish(ServeResult result, String rest, String text, boolean cut) {
      delta(rest);
      ObjectNode last = head(id(), "chat.completion.chunk", created, model);
      ObjectNode cl = last.putArray("choices").addObject();
      cl.put("index", 0);
      cl.putObject("delta");
      cl.put("finish_reason", cut ? "length" : "stop");
      if (usageChunk) {
        send(event(last));
        ObjectNode alone = head(id(), "chat.completion.chunk", created, model);
        alone.putArray("choices");
        alone.set("usage", EnergyUsage.usage(result, Completions::tokens));
        send(event(alone));
      } else {
        last.set("energy", EnergyUsage.energy(result));
        send(event(last));
      }
      send(Reply.Event.text(Optional.empty(), "[DONE]"));
    }

    @Override
    void fail(ObjectNode error) {
      send(event(error));
    }
  }

  private static ObjectNode head(String id, String object, long created, String model) {
    ObjectNode o = NODES.objectNode();
    o.put("id", id);
    o.put("object", object);
    o.put("created", created);
    o.put("model", model);
    o.putNull("system_fingerprint");
    return o;
  }

  /** A chat completion's token fields in {@code usage}. */
  private static void tokens(JsonGenerator g, ServeOutcome outcome) throws IOException {
    g.writeNumberField("prompt_tokens", outcome.tokensIn());
    g.writeNumberField("completion_tokens", outcome.tokensOut());
  }

  private static Reply.Event event(ObjectNode data) {
    return Reply.Event.json(Optional.empty(), data);
  }
}
