package org.meshjava.openai;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * The options of an OpenAI body that change what a correct reply is, but that no backend of this
 * binding honours. Each is refused with 400 {@code unsupported} naming it (as the LangChain4j
 * adapter refuses them), never ignored: a reply that silently lacks what was asked — one choice
 * where {@code n} asked for two, text running past a stop sequence, a tool never called, a
 * conversation answered without the history {@code previous_response_id} names — would be wrong in
 * a way the caller cannot see, and its receipt would vouch for it.
 *
 * <p>An option at its default ({@code n} 1, an empty {@code tools}, {@code stop} null, {@code
 * logprobs} false, a responses body's {@code tool_choice} {@code "none"} or {@code "auto"}) asks
 * for nothing and is served. A chat body's {@code tool_choice} at such a value, or its {@code
 * parallel_tool_calls} at any value, is refused {@code invalid_field} as OpenAI refuses it without
 * tools (a {@code tool_choice} asking for a tool is {@code unsupported} first). Sampling settings
 * ({@code temperature}, {@code top_p}, {@code seed}, {@code logit_bias}, penalties) stay the
 * backend's own and are not read (SPEC.md, section 70), save that {@code seed} must be a whole
 * number as every integer field must ({@link WholeNumberField}), and {@code temperature}, {@code
 * top_p} and a chat body's penalties a number in OpenAI's range ({@link DecimalField}). A value of
 * the wrong type or outside OpenAI's range is refused first, with OpenAI's code ({@link
 * FieldRefusal}). Stateless.
 */
final class UnservedOptions {
  private UnservedOptions() {}

  /**
   * Refuses the first option of {@code body} that asks for something not served, or that OpenAI's
   * chat completions refuse without tools.
   *
   * @throws BindingException {@code UNSUPPORTED}, its {@code param} the option; {@code
   *     INVALID_FIELD} for a chat body's {@code tool_choice} or {@code parallel_tool_calls}, or an
   *     option of the wrong type
   */
  static void check(JsonNode body, GrantedServeRequest.Endpoint endpoint) throws BindingException {
    checkRanges(body, endpoint);
    refuseUnlessEmpty(body, "tools", "no backend here calls tools");
    refuseChoice(body, "tool_choice", "no backend here calls tools");
    if (endpoint == GrantedServeRequest.Endpoint.CHAT_COMPLETIONS) {
      OptionalLong n = WholeNumberField.read(body, "n");
      if (n.isPresent() && n.getAsLong() != 1) {
        throw unsupported("n", "one choice is served per request; leave n at 1");
      }
      // Read for its type alone; its value stays the backend's, as other sampling settings do.
      WholeNumberField.read(body, "seed");
      refuseUnlessEmpty(body, "functions", "no backend here calls functions");
      refuseChoice(body, "function_call", "no backend here calls functions");
      // OpenAI's chat completions refuse these two without tools (400 naming the field), and with
      // tools refused above a body here has none: served, it would be a body the real API refuses.
      refuseWithoutTools(body, "tool_choice");
      refuseWithoutTools(body, "parallel_tool_calls");
      checkMessages(body, "messages");
      refuseUnlessEmpty(body, "stop", "no backend here stops at a stop sequence");
      refuseUnless(body, "logprobs", false, "log probabilities are not reported");
      refuseUnlessZero(body, "top_logprobs", "log probabilities are not reported");
      refuseIfPresent(body, "audio", "replies are text only");
      // Present at all (even {}), it asks the model to search the web before answering.
      refuseIfPresent(body, "web_search_options", "no backend here searches the web");
      JsonNode modalities = present(body, "modalities");
      if (modalities != null
          && !(modalities.isArray()
              && modalities.size() == 1
              && "text".equals(modalities.get(0).asText()))) {
        throw unsupported("modalities", "replies are text only; leave modalities at [\"text\"]");
      }
    } else {
      refuseIfPresent(
          body,
          "previous_response_id",
          "responses are not stored here; send the whole conversation as input");
      refuseIfPresent(
          body, "conversation", "responses are not stored here; send the conversation as input");
      checkMessages(body, "input");
      refuseIfPresent(body, "prompt", "stored prompts are not served; send the input itself");
      refuseUnless(body, "background", false, "a response is served while the request waits");
      refuseUnlessZero(body, "top_logprobs", "log probabilities are not reported");
      // Read for its type alone: with no tools served, no bound on their calls is reached.
      WholeNumberField.read(body, "max_tool_calls");
      JsonNode include = present(body, "include");
      if (include != null) {
        // Any other shape is refused, not skipped: a bare string naming the log probabilities
        // would be served without them, as if nothing had been asked.
        if (!include.isArray()) {
          throw invalidInclude();
        }
        for (JsonNode asked : include) {
          if (!asked.isTextual()) {
            throw invalidInclude();
          }
          // The other includes name outputs of tools, images or reasoning, none of which a
          // reply here has, so there is nothing for them to leave out.
          if ("message.output_text.logprobs".equals(asked.asText())) {
            throw unsupported("include", "log probabilities are not reported");
          }
        }
      }
    }
  }

  /**
   * Refuses, as OpenAI's API refuses them and before any option is read for what it asks, the
   * options whose JSON type or range that API fixes: {@code n} 1 to 128, {@code temperature} 0 to
   * 2, {@code top_p} 0 to 1, a chat body's {@code frequency_penalty} and {@code presence_penalty}
   * -2 to 2, {@code top_logprobs} 0 to 20, {@code logprobs} a boolean, and a chat body's {@code
   * top_logprobs} above 0 without {@code logprobs} true. A body outside them is one no server of
   * that API serves; answered {@code unsupported} (or served, for the sampling settings), a client
   * would be told to look for another server when its body is at fault.
   */
  private static void checkRanges(JsonNode body, GrantedServeRequest.Endpoint endpoint)
      throws BindingException {
    DecimalField.check(body, "temperature", 0, 2);
    DecimalField.check(body, "top_p", 0, 1);
    OptionalLong top = WholeNumberField.read(body, "top_logprobs", 0, 20);
    if (endpoint == GrantedServeRequest.Endpoint.CHAT_COMPLETIONS) {
      WholeNumberField.read(body, "n", 1, 128);
      // Chat's own sampling settings (a responses body has no penalties), ranged as OpenAI's.
      DecimalField.check(body, "frequency_penalty", -2, 2);
      DecimalField.check(body, "presence_penalty", -2, 2);
      JsonNode logprobs = present(body, "logprobs");
      if (logprobs != null && !logprobs.isBoolean()) {
        throw FieldRefusal.invalidType("logprobs", "a boolean", logprobs);
      }
      if (top.isPresent() && top.getAsLong() > 0 && !(logprobs != null && logprobs.asBoolean())) {
        throw new BindingException(
            BindingException.Reason.INVALID_FIELD,
            "top_logprobs",
            "top_logprobs is allowed only beside logprobs true");
      }
    }
  }

  /**
   * Refuses {@code stream} true on a body that asks for a typed decision ({@code decision}): a
   * decision is answered whole, once every question is scored. Its type is the endpoint's to check.
   *
   * @throws BindingException {@code UNSUPPORTED}, its {@code param} {@code stream}
   */
  static void refuseStreamedDecision(JsonNode body, boolean decision) throws BindingException {
    JsonNode stream = body.get("stream");
    if (decision && stream != null && stream.isBoolean() && stream.asBoolean()) {
      throw new BindingException(
          BindingException.Reason.UNSUPPORTED,
          "stream",
          "a typed decision is answered whole; leave stream false");
    }
  }

  /**
   * Refuses what a chat message carries that no backend honours. The tool fields: an assistant's
   * {@code tool_calls} or {@code function_call}, a {@code tool_call_id}, a message of role {@code
   * tool} or {@code function}; with tools refused on the body they belong to a conversation this
   * server cannot have held, and a reply to history whose calls and results are dropped answers
   * another conversation. And {@code name}, which OpenAI gives the model as the speaker of a
   * message: the prompt a request hashes and a backend receives is each message's role and text
   * alone (§70), so a named speaker would be served, and vouched for by its receipt, as if unnamed.
   * {@code field} is the array of messages: chat's {@code messages}, or a responses body's {@code
   * input}, whose message items carry the same roles and are hashed the same way. One that is not
   * an array of objects is left to {@link Prompt#ofChat} or {@link Prompt#ofResponses}.
   */
  private static void checkMessages(JsonNode body, String field) throws BindingException {
    JsonNode messages = body.get(field);
    if (messages == null || !messages.isArray()) {
      return;
    }
    for (int i = 0; i < messages.size(); i++) {
      JsonNode m = messages.get(i);
      String path = field + "[" + i + "]";
      if (!m.isObject()) {
        continue;
      }
      JsonNode role = m.get("role");
      if (role != null && ("tool".equals(role.asText()) || "function".equals(role.asText()))) {
        throw unsupported(
            path + ".role",
            "no backend here calls tools, so there is no tool result to send ('"
                + role.asText()
                + "')");
      }
      refuseUnlessEmpty(m, path, "tool_calls", "no backend here calls tools");
      refuseIfPresent(m, path, "function_call", "no backend here calls functions");
      refuseIfPresent(m, path, "tool_call_id", "no backend here calls tools");
      refuseIfPresent(
          m,
          path,
          "name",
          "a speaker's name is not part of the prompt served; put it in the content, or leave"
              + " name out");
    }
  }

  /** The field's value, or null when it is absent or JSON null (both mean the default). */
  private static @Nullable JsonNode present(JsonNode body, String field) {
    JsonNode v = body.get(field);
    return v == null || v.isNull() ? null : v;
  }

  /** Refuses the field unless absent, null, an empty string or an empty array. */
  private static void refuseUnlessEmpty(JsonNode body, String field, String why)
      throws BindingException {
    refuseUnlessEmpty(body, "", field, why);
  }

  /** As {@link #refuseUnlessEmpty(JsonNode, String, String)}, in the object at {@code path}. */
  private static void refuseUnlessEmpty(JsonNode object, String path, String field, String why)
      throws BindingException {
    JsonNode v = present(object, field);
    if (v != null && !(v.isArray() && v.isEmpty()) && !(v.isTextual() && v.asText().isEmpty())) {
      throw unsupported(qualified(path, field), why);
    }
  }

  /** {@code field} of the object at {@code path} ("" for the body), as a {@code param}. */
  private static String qualified(String path, String field) {
    return path.isEmpty() ? field : path + "." + field;
  }

  /** Refuses a tool choice other than none or auto (absent or null: the default). */
  private static void refuseChoice(JsonNode body, String field, String why)
      throws BindingException {
    JsonNode v = present(body, field);
    if (v != null && !(v.isTextual() && ("none".equals(v.asText()) || "auto".equals(v.asText())))) {
      throw unsupported(field, why);
    }
  }

  /**
   * Refuses a chat field that OpenAI takes only beside a non-empty {@code tools}, which no body
   * served here has. Not {@code unsupported}: nothing is asked that another server could give; the
   * body is one the API it imitates refuses too.
   */
  private static void refuseWithoutTools(JsonNode body, String field) throws BindingException {
    if (present(body, field) != null) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD,
          field,
          field + " is only allowed beside tools, and no backend here calls tools; leave it out");
    }
  }

  /** Refuses the field unless absent, null or the boolean {@code fine}. */
  private static void refuseUnless(JsonNode body, String field, boolean fine, String why)
      throws BindingException {
    JsonNode v = present(body, field);
    if (v != null && !(v.isBoolean() && v.asBoolean() == fine)) {
      throw unsupported(field, why);
    }
  }

  /** Refuses the field unless absent, null or the whole number 0. */
  private static void refuseUnlessZero(JsonNode body, String field, String why)
      throws BindingException {
    OptionalLong v = WholeNumberField.read(body, field);
    if (v.isPresent() && v.getAsLong() != 0) {
      throw unsupported(field, why);
    }
  }

  /** Refuses the field unless absent or null. */
  private static void refuseIfPresent(JsonNode body, String field, String why)
      throws BindingException {
    refuseIfPresent(body, "", field, why);
  }

  /** As {@link #refuseIfPresent(JsonNode, String, String)}, in the object at {@code path}. */
  private static void refuseIfPresent(JsonNode object, String path, String field, String why)
      throws BindingException {
    if (present(object, field) != null) {
      throw unsupported(qualified(path, field), why);
    }
  }

  private static BindingException invalidInclude() {
    return new BindingException(
        BindingException.Reason.INVALID_FIELD,
        "include",
        "include must be an array of strings, each naming an extra output, or null");
  }

  private static BindingException unsupported(String field, String why) {
    return new BindingException(BindingException.Reason.UNSUPPORTED, field, field + ": " + why);
  }
}
