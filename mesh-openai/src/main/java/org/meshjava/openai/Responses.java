package org.meshjava.openai;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.meshjava.steward.ServeResult;

/**
 * Responses API replies in OpenAI's wire format, whole or as a stream of named events: {@code
 * response.created}, {@code response.output_item.added}, {@code response.content_part.added},
 * {@code response.output_text.delta}…, {@code response.output_text.done}, {@code
 * response.content_part.done}, {@code response.output_item.done}, then {@code
 * response.completed} (or {@code response.incomplete} when {@code max_output_tokens} cut the
 * output) whose response's {@code usage} carries the energy and receipt.
 */
final class Responses {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private Responses() {}

  static Reply reply(ServeResult result, String text, boolean cut, long created, boolean stream) {
    String hex = result.envelope().id().hex();
    String id = "resp_" + hex.substring(0, 32);
    String itemId = "msg_" + hex.substring(32);
    String model = result.route().chosen().name();
    ObjectNode done = response(id, created, model, cut ? "incomplete" : "completed", cut);
    ArrayNode output = done.putArray("output");
    output.add(item(itemId, "completed", text));
    done.set("usage", usage(result));
    if (!stream) {
      return new Reply.Json(200, done);
    }
    List<Reply.Event> events = new ArrayList<>();
    int[] seq = {0};
    ObjectNode started = response(id, created, model, "in_progress", false);
    started.putArray("output");
    started.putNull("usage");
    ObjectNode e = event("response.created", seq);
    e.set("response", started);
    events.add(wire(e));
    e = event("response.output_item.added", seq);
    e.put("output_index", 0);
    ObjectNode added = item(itemId, "in_progress", null);
    e.set("item", added);
    events.add(wire(e));
    e = event("response.content_part.added", seq);
    e.put("item_id", itemId).put("output_index", 0).put("content_index", 0);
    e.set("part", part(""));
    events.add(wire(e));
    for (String piece : Endpoints.pieces(text)) {
      e = event("response.output_text.delta", seq);
      e.put("item_id", itemId).put("output_index", 0).put("content_index", 0).put("delta", piece);
      events.add(wire(e));
    }
    e = event("response.output_text.done", seq);
    e.put("item_id", itemId).put("output_index", 0).put("content_index", 0).put("text", text);
    events.add(wire(e));
    e = event("response.content_part.done", seq);
    e.put("item_id", itemId).put("output_index", 0).put("content_index", 0);
    e.set("part", part(text));
    events.add(wire(e));
    e = event("response.output_item.done", seq);
    e.put("output_index", 0);
    e.set("item", item(itemId, "completed", text));
    events.add(wire(e));
    e = event(cut ? "response.incomplete" : "response.completed", seq);
    e.set("response", done);
    events.add(wire(e));
    return new Reply.EventStream(events);
  }

  private static ObjectNode response(String id, long created, String model, String status, boolean cut) {
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
    return r;
  }

  private static ObjectNode item(String itemId, String status, String text) {
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
    return p;
  }

  private static ObjectNode usage(ServeResult result) {
    ObjectNode u = NODES.objectNode();
    long in = result.outcome().tokensIn();
    long out = result.outcome().tokensOut();
    u.put("input_tokens", in);
    u.putObject("input_tokens_details").put("cached_tokens", 0);
    u.put("output_tokens", out);
    u.putObject("output_tokens_details").put("reasoning_tokens", 0);
    u.put("total_tokens", in + out);
    u.set("energy", EnergyUsage.of(result));
    return u;
  }

  private static ObjectNode event(String type, int[] seq) {
    ObjectNode e = NODES.objectNode();
    e.put("type", type);
    e.put("sequence_number", seq[0]++);
    return e;
  }

  private static Reply.Event wire(ObjectNode e) {
    return new Reply.Event(Optional.of(e.get("type").asText()), e.toString());
  }
}
