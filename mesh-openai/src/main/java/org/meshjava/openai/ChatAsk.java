package org.meshjava.openai;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.steward.Steward;

/**
 * A chat asked of a steward in-process, as the binding would serve the equivalent {@code POST
 * /v1/chat/completions} body (§2.3): the same {@link Prompt} text and the same {@link
 * GrantedServeRequest} derivation, so the request id a presentation signs, and the receipt's {@code
 * prompt_hash}, do not depend on whether the chat came over HTTP or through a framework adapter
 * (LangChain4j, Spring AI). Built by deriving that very body, so the two cannot drift.
 *
 * @param request the request to serve
 * @param prompt the prompt text the request's {@code prompt_hash} addresses
 */
public record ChatAsk(ServeRequest request, PromptText prompt) {

  /** Validates the record. */
  public ChatAsk {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(prompt, "prompt");
    if (!request.promptHash().equals(prompt.hash())) {
      throw new IllegalArgumentException("the request does not address the prompt text");
    }
  }

  /** Starts a chat of {@code prompt}'s messages. */
  public static Builder builder(Prompt prompt) {
    return new Builder(prompt);
  }

  /** The settings of a chat besides its messages; each defaults as the binding's body would. */
  public static final class Builder {
    private final Prompt prompt;
    private long maxTokens = GrantedServeRequest.DEFAULT_MAX_TOKENS;
    private @Nullable Long jouleCeilingUj;
    private Fidelity fidelityFloor = Fidelity.F0;
    private @Nullable String model;

    private Builder(Prompt prompt) {
      this.prompt = Objects.requireNonNull(prompt, "prompt");
    }

    /**
     * The output ceiling ({@code max_completion_tokens}); default {@value
     * GrantedServeRequest#DEFAULT_MAX_TOKENS}.
     */
    public Builder maxTokens(long v) {
      this.maxTokens = v;
      return this;
    }

    /** The request's joule ceiling in µJ ({@code metadata.joule_ceiling_uj}); required. */
    public Builder jouleCeilingUj(long v) {
      this.jouleCeilingUj = v;
      return this;
    }

    /** The lowest fidelity the caller accepts ({@code metadata.fidelity_floor}); default F0. */
    public Builder fidelityFloor(Fidelity v) {
      this.fidelityFloor = Objects.requireNonNull(v, "fidelityFloor");
      return this;
    }

    /**
     * The backend or recipe to route to ({@code model}); default none: every backend is a
     * candidate, as is {@value GrantedServeRequest#AUTO}.
     */
    public Builder model(String v) {
      this.model = Objects.requireNonNull(v, "model");
      return this;
    }

    /**
     * The model a framework's chat options name, checked against {@code steward}: routes to {@code
     * v} as {@link #model(String)} does, and leaves every backend a candidate when {@code v} is
     * null or {@value GrantedServeRequest#AUTO}.
     *
     * @throws IllegalArgumentException naming the backends {@code steward} does serve, if none has
     *     that name or serves that recipe
     */
    public Builder model(@Nullable String v, Steward steward) {
      if (v == null || v.equals(GrantedServeRequest.AUTO)) {
        return this;
      }
      if (!steward.serves(v)) {
        throw new IllegalArgumentException(
            "the steward serves no backend or recipe named '"
                + v
                + "'; it serves "
                + steward.backends().stream().map(ServingEngine::name).toList());
      }
      return model(v);
    }

    /** The equivalent chat completions body. */
    ObjectNode body() {
      JsonNodeFactory nodes = JsonNodeFactory.instance;
      ObjectNode body = nodes.objectNode();
      if (model != null) {
        body.put("model", model);
      }
      ArrayNode messages = body.putArray("messages");
      for (Prompt.Message m : prompt.messages()) {
        messages.addObject().put("role", m.role()).put("content", m.content());
      }
      body.put("max_completion_tokens", maxTokens);
      ObjectNode metadata = body.putObject("metadata");
      if (jouleCeilingUj != null) {
        metadata.put("joule_ceiling_uj", Long.toUnsignedString(jouleCeilingUj));
      }
      metadata.put("fidelity_floor", fidelityFloor.name());
      return body;
    }

    /**
     * Derives the request.
     *
     * @throws IllegalArgumentException naming the setting the binding would refuse: no joule
     *     ceiling, or a value out of its range
     */
    public ChatAsk build() {
      if (jouleCeilingUj == null) {
        throw new IllegalArgumentException("a chat names its joule ceiling (§2.3)");
      }
      ObjectNode body = body();
      try {
        ServeRequest request =
            GrantedServeRequest.derive(body, GrantedServeRequest.Endpoint.CHAT_COMPLETIONS);
        return new ChatAsk(request, PromptText.of(prompt.bytes()));
      } catch (BindingException e) {
        throw new IllegalArgumentException(
            e.param().map(p -> p + ": ").orElse("") + e.getMessage(), e);
      }
    }
  }
}
