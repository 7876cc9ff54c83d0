package org.meshjava.openai;

import com.fasterxml.jackson.databind.JsonNode;
import java.math.BigInteger;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import org.meshjava.core.DecisionPrompt;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;

/**
 * {@code granted_serve_request} (§2.3): the exact {@link ServeRequest} a body is served as, derived
 * from the body alone, so that a caller can compute the request id its presentation must sign
 * before it sends the body. The server serves every request, granted or not, as this derivation; an
 * ungranted body may leave {@code metadata.joule_ceiling_uj} out and get the server's default.
 *
 * <ul>
 *   <li>{@code prompt_hash}: BLAKE3 of the {@link Prompt} text of {@code messages} (a chat body) or
 *       {@code instructions} and {@code input} (a responses body);
 *   <li>{@code prompt_tokens}: {@code metadata.prompt_tokens} when given, else the byte length of
 *       the prompt text (the byte-level token count), never the serving backend's tokenizer count;
 *   <li>{@code max_tokens}: {@code max_completion_tokens} or {@code max_tokens} (chat; equal when
 *       both are given), {@code max_output_tokens} (responses), else {@value #DEFAULT_MAX_TOKENS};
 *   <li>{@code fidelity_floor}: {@code metadata.fidelity_floor} as {@code F0}–{@code F4} or {@code
 *       0}–{@code 4}, else {@code F0};
 *   <li>{@code joule_ceiling_uj}: {@code metadata.joule_ceiling_uj}, required;
 *   <li>for a body that asks a typed decision ({@link DecisionBody}): {@code prompt_hash}, {@code
 *       prompt_tokens} and {@code decision} of the {@link DecisionPrompt} of its questions and
 *       prompt text, {@code max_tokens} 0 (a decision emits none, and is never priced for them);
 *   <li>{@code model}: the body's {@code model} when it names a backend or recipe; absent when the
 *       body names none, or names {@value #AUTO}.
 * </ul>
 *
 * <p>Metadata values are decimal strings (what OpenAI's SDKs send, since its {@code metadata} is a
 * map of strings) or JSON whole numbers; anything else is refused. Stateless and thread-safe.
 */
public final class GrantedServeRequest {
  /** The reserved model name: route over every backend, as if the body named none. */
  public static final String AUTO = "auto";

  /** The output ceiling when a body names none. */
  public static final long DEFAULT_MAX_TOKENS = 128;

  private static final Pattern DECIMAL = Pattern.compile("0|[1-9][0-9]{0,19}");

  private GrantedServeRequest() {}

  /** Which OpenAI endpoint a body is for. */
  public enum Endpoint {
    /** {@code POST /v1/chat/completions}: the prompt is {@code messages}. */
    CHAT_COMPLETIONS,
    /** {@code POST /v1/responses}: the prompt is {@code instructions} and {@code input}. */
    RESPONSES
  }

  /**
   * Reads a request body exactly as the binding reads one it is sent (SPEC.md section 70): UTF-8
   * without a byte-order mark, strict JSON (a duplicate key or trailing text is refused), one
   * object. A caller that signs a presentation for a body read any other way could derive an id the
   * server does not.
   *
   * @throws BindingException {@code NOT_UTF8} or {@code NOT_JSON}
   */
  public static JsonNode parseBody(byte[] body) throws BindingException {
    return Endpoints.parse(body);
  }

  /**
   * Derives the request a granted body is served as, telling the endpoint by its fields: {@code
   * messages} for chat completions, {@code input} for responses.
   *
   * @throws BindingException if the body is malformed or names no {@code metadata.joule_ceiling_uj}
   */
  public static ServeRequest derive(JsonNode body) throws BindingException {
    return derive(body, endpointOf(body));
  }

  /**
   * Derives the request a granted body for {@code endpoint} is served as.
   *
   * @throws BindingException if the body is malformed or names no {@code metadata.joule_ceiling_uj}
   */
  public static ServeRequest derive(JsonNode body, Endpoint endpoint) throws BindingException {
    return derive(body, endpoint, OptionalLong.empty());
  }

  /**
   * Refuses a body that the endpoint its fields name would refuse as {@code unsupported}: an option
   * no backend here honours ({@code n} other than 1, tools, stop sequences, …), a message with a
   * tool role or a speaker's {@code name}, or a typed decision asked to stream; and the options it
   * refuses as {@code invalid_field} (a chat body's {@code stream_options} without {@code stream}
   * true, its {@code tool_choice} or {@code parallel_tool_calls}). The rules are the endpoint's
   * own, so a caller that checks before signing a presentation signs no body the server then turns
   * away.
   *
   * @throws BindingException {@code UNSUPPORTED} naming the option, in the endpoint's words; or
   *     {@code INVALID_FIELD} when the body names no endpoint, an option has the wrong type or is
   *     one the endpoint refuses as OpenAI does; or as the endpoint refuses a malformed decision
   *     ({@link #derive(JsonNode)} refuses it first)
   */
  public static void refuseUnserved(JsonNode body) throws BindingException {
    Endpoint endpoint = endpointOf(body);
    StreamSettings.of(body, endpoint);
    UnservedOptions.check(body, endpoint);
    UnservedOptions.refuseStreamedDecision(body, DecisionBody.of(body, endpoint).isPresent());
  }

  /** Tells the endpoint from the body's fields. */
  static Endpoint endpointOf(JsonNode body) throws BindingException {
    requireObject(body);
    boolean chat = body.has("messages");
    boolean responses = body.has("input");
    if (chat == responses) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD,
          null,
          "a body has exactly one of messages (chat completions) and input (responses)");
    }
    return chat ? Endpoint.CHAT_COMPLETIONS : Endpoint.RESPONSES;
  }

  /**
   * The derivation with a server default ceiling, which only an ungranted request may use: a
   * default would enter a granted request's id unseen by the caller (§2.3).
   */
  static ServeRequest derive(JsonNode body, Endpoint endpoint, OptionalLong defaultCeilingUj)
      throws BindingException {
    requireObject(body);
    // A body with both prompts is refused wherever it is sent, as derive(body) refuses it: served,
    // the other prompt would be ignored without the caller being told.
    String other = endpoint == Endpoint.CHAT_COMPLETIONS ? "input" : "messages";
    if (body.has(other)) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD,
          other,
          "a body has exactly one of messages (chat completions) and input (responses)");
    }
    Prompt prompt =
        endpoint == Endpoint.CHAT_COMPLETIONS ? Prompt.ofChat(body) : Prompt.ofResponses(body);
    byte[] text = prompt.bytes();
    JsonNode metadata = body.get("metadata");
    if (metadata != null && !metadata.isNull() && !metadata.isObject()) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD, "metadata", "metadata must be an object");
    }
    if (metadata == null || metadata.isNull()) {
      metadata = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode();
    }
    MeshMetadataKeys.refuseNearMisses(metadata);
    long promptTokens =
        metadataUnsigned(metadata, "prompt_tokens", 0xFFFF_FFFFL).orElse(text.length);
    if (promptTokens > 0xFFFF_FFFFL) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD,
          "messages",
          "the prompt is longer than a u32 token count");
    }
    long maxTokens = maxTokens(body, endpoint);
    Fidelity floor = floor(metadata);
    // A u64 limited to 2^63-1 (SPEC.md 10.1.4): ServeRequest holds it in a long, and no steward
    // meters that much, so a larger value is refused rather than wrapped.
    OptionalLong ceiling = metadataUnsigned(metadata, "joule_ceiling_uj", Long.MAX_VALUE);
    if (ceiling.isEmpty() && defaultCeilingUj.isEmpty()) {
      throw new BindingException(
          BindingException.Reason.MISSING_JOULE_CEILING,
          "metadata.joule_ceiling_uj",
          "a granted request must name its own metadata.joule_ceiling_uj (§2.3)");
    }
    long ceilingUj = ceiling.isPresent() ? ceiling.getAsLong() : defaultCeilingUj.getAsLong();
    Optional<DecisionPrompt> decision = decision(body, endpoint, prompt);
    ServeRequest request =
        decision.isPresent()
            ? ServeRequest.decision(decision.get(), floor, ceilingUj)
            : ServeRequest.generation(
                prompt.hash(), promptTokens, new ServeBounds(maxTokens, floor, ceilingUj));
    Optional<String> model = model(body);
    return model.isPresent() ? request.withModel(model.get()) : request;
  }

  /**
   * The model a body restricts routing to: its {@code model} string, unless absent, null or {@value
   * #AUTO}.
   *
   * @throws BindingException if {@code model} is not a string, not well-formed Unicode (a lone
   *     surrogate, as a prompt's text is refused), or not a possible name
   */
  static Optional<String> model(JsonNode body) throws BindingException {
    JsonNode v = body.get("model");
    if (v == null || v.isNull()) {
      return Optional.empty();
    }
    if (!v.isTextual()) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD, "model", "model must be a string");
    }
    return modelNamed(v.asText());
  }

  /**
   * The model a body's {@code model} string restricts routing to: empty for {@value #AUTO}.
   *
   * @throws BindingException if it is not well-formed Unicode or not a possible name
   */
  static Optional<String> modelNamed(String text) throws BindingException {
    String m = Prompt.wellFormed(text, "model");
    if (m.equals(AUTO)) {
      return Optional.empty();
    }
    if (m.isEmpty()
        || m.length() > ServeRequest.MAX_MODEL_NAME
        || m.chars().anyMatch(Character::isISOControl)) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD,
          "model",
          "model must be 1-"
              + ServeRequest.MAX_MODEL_NAME
              + " characters without control characters");
    }
    return Optional.of(m);
  }

  private static void requireObject(JsonNode body) throws BindingException {
    if (body == null || !body.isObject()) {
      throw new BindingException(
          BindingException.Reason.NOT_JSON, null, "the body must be a JSON object");
    }
  }

  private static long maxTokens(JsonNode body, Endpoint endpoint) throws BindingException {
    if (endpoint == Endpoint.RESPONSES) {
      return positiveU32(body, "max_output_tokens").orElse(DEFAULT_MAX_TOKENS);
    }
    OptionalLong completion = positiveU32(body, "max_completion_tokens");
    OptionalLong legacy = positiveU32(body, "max_tokens");
    if (completion.isPresent()
        && legacy.isPresent()
        && completion.getAsLong() != legacy.getAsLong()) {
      throw new BindingException(
          BindingException.Reason.INVALID_FIELD,
          "max_tokens",
          "max_tokens and max_completion_tokens disagree");
    }
    return completion.isPresent() ? completion.getAsLong() : legacy.orElse(DEFAULT_MAX_TOKENS);
  }

  private static OptionalLong positiveU32(JsonNode body, String field) throws BindingException {
    return WholeNumberField.read(body, field, 1, 0xFFFF_FFFFL);
  }

  private static Fidelity floor(JsonNode metadata) throws BindingException {
    JsonNode v = metadata.get("fidelity_floor");
    if (v == null || v.isNull()) {
      return Fidelity.F0;
    }
    String text;
    if (v.isTextual()) {
      text = v.asText();
    } else if (v.isIntegralNumber()) {
      text = v.asText();
    } else {
      throw badMetadata("fidelity_floor", "F0-F4 or 0-4");
    }
    return Fidelity.parse(text).orElseThrow(() -> badMetadata("fidelity_floor", "F0-F4 or 0-4"));
  }

  /**
   * An unsigned metadata value from 0 to {@code max}; anything else is refused with a message
   * stating that range.
   */
  private static OptionalLong metadataUnsigned(JsonNode metadata, String key, long max)
      throws BindingException {
    JsonNode v = metadata.get(key);
    if (v == null || v.isNull()) {
      return OptionalLong.empty();
    }
    String expected = "a decimal string or whole number 0-" + max;
    BigInteger value;
    if (v.isTextual() && DECIMAL.matcher(v.asText()).matches()) {
      value = new BigInteger(v.asText());
    } else if (v.isIntegralNumber()) {
      value = v.bigIntegerValue();
    } else {
      throw badMetadata(key, expected);
    }
    if (value.signum() < 0 || value.compareTo(BigInteger.valueOf(max)) > 0) {
      throw badMetadata(key, expected);
    }
    return OptionalLong.of(value.longValueExact());
  }

  private static BindingException badMetadata(String key, String expected) {
    return new BindingException(
        BindingException.Reason.INVALID_METADATA,
        "metadata." + key,
        "metadata." + key + " must be " + expected);
  }

  /**
   * The typed decision a body asks ({@link DecisionBody}), with the body's prompt text as the state
   * under judgement.
   */
  static Optional<DecisionPrompt> decision(JsonNode body, Endpoint endpoint, Prompt prompt)
      throws BindingException {
    Optional<DecisionBody> asked = DecisionBody.of(body, endpoint);
    return asked.isEmpty()
        ? Optional.empty()
        : Optional.of(new DecisionPrompt(asked.get().questions(), PromptText.of(prompt.bytes())));
  }

  /** The prompt a body carries, for the endpoint it is for. */
  static Prompt prompt(JsonNode body, Endpoint endpoint) throws BindingException {
    return endpoint == Endpoint.CHAT_COMPLETIONS ? Prompt.ofChat(body) : Prompt.ofResponses(body);
  }

  /**
   * Whether the body rides on a grant: it carries {@code jcp_presentation}. An explicit {@code
   * null} is refused rather than read as absent: a body that names the field means to spend a
   * grant, and serving it ungranted would change who pays and what is checked without the caller
   * seeing it (SPEC.md §70).
   */
  static Optional<String> presentationHex(JsonNode body) throws BindingException {
    JsonNode p = body.get("jcp_presentation");
    if (p == null) {
      return Optional.empty();
    }
    if (p.isNull()) {
      throw new BindingException(
          BindingException.Reason.MALFORMED_PRESENTATION,
          "jcp_presentation",
          "jcp_presentation is null; leave the field out for an ungranted request");
    }
    if (!p.isTextual()) {
      throw new BindingException(
          BindingException.Reason.MALFORMED_PRESENTATION,
          "jcp_presentation",
          "jcp_presentation must be the hex of a presentation");
    }
    return Optional.of(p.asText());
  }
}
