package org.meshjava.core;

import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.internal.RequestCbor;

/**
 * A request to serve (§3.1). Content-addressed: {@link #id()} is the {@code request_id} a grant
 * authorises and a receipt names. It carries the prompt's content id, never the prompt.
 *
 * <p>Canonical form: a map with text keys {@code prompt_hash} (hex text), {@code prompt_tokens},
 * {@code max_tokens}, {@code fidelity_floor} (level 0–4), {@code joule_ceiling_uj} (unsigned
 * integers), and {@code decision} only when the request asks for a typed decision — so a
 * generation's id never depends on the decision extension. See SPEC.md section 10.3.
 *
 * <p>Immutable and thread-safe. No component is null: an absent {@code decision} or {@code model}
 * is {@link Optional#empty()}.
 *
 * @param promptHash content id of the prompt bytes
 * @param promptTokens declared input token count (u32)
 * @param maxTokens output token ceiling (u32)
 * @param fidelityFloor the least acceptable fidelity
 * @param jouleCeilingUj the hard energy budget in µJ (u64, non-negative)
 * @param decision present when a typed decision is asked for
 * @param model present when the caller restricts routing to the backends of one name or recipe (a
 *     mesh-java extension, omitted from the canonical form when absent, so every other request's id
 *     is unchanged; see SPEC.md §Model)
 */
public record ServeRequest(
    ContentId promptHash,
    long promptTokens,
    long maxTokens,
    Fidelity fidelityFloor,
    long jouleCeilingUj,
    Optional<DecisionShape> decision,
    Optional<String> model)
    implements CanonicalForm {

  /** The most UTF-16 units a model name may have. */
  public static final int MAX_MODEL_NAME = 256;

  /**
   * Validates the request; both bounds of the §3.1 contract are required.
   *
   * @throws NullPointerException if any component is null
   * @throws IllegalArgumentException if a count is negative or past its width (u32, u64), the
   *     decision's {@code schema_tokens} exceeds {@code promptTokens}, or the model name is empty,
   *     longer than {@value #MAX_MODEL_NAME} characters or holds a control character
   */
  public ServeRequest {
    Objects.requireNonNull(promptHash, "prompt_hash");
    Objects.requireNonNull(fidelityFloor, "fidelity_floor is required (§3.1)");
    Objects.requireNonNull(decision, "decision");
    Objects.requireNonNull(model, "model");
    model.ifPresent(
        m -> {
          if (m.isEmpty()
              || m.length() > MAX_MODEL_NAME
              || m.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException(
                "a model name is 1-" + MAX_MODEL_NAME + " characters without control characters");
          }
        });
    Unsigned.u32("prompt_tokens", promptTokens);
    Unsigned.u32("max_tokens", maxTokens);
    Unsigned.u64("joule_ceiling_uj", jouleCeilingUj);
    decision.ifPresent(
        d -> {
          if (d.schemaTokens() > promptTokens) {
            throw new IllegalArgumentException(
                "schema_tokens ("
                    + d.schemaTokens()
                    + ") exceeds prompt_tokens ("
                    + promptTokens
                    + ")");
          }
        });
  }

  /**
   * A request that names no model: routing weighs every backend.
   *
   * @param promptHash content id of the prompt bytes
   * @param promptTokens declared input token count (u32)
   * @param maxTokens output token ceiling (u32)
   * @param fidelityFloor the least acceptable fidelity
   * @param jouleCeilingUj the hard energy budget in µJ (u64, non-negative)
   * @param decision present when a typed decision is asked for
   * @throws NullPointerException if any argument is null
   * @throws IllegalArgumentException as the canonical constructor
   */
  public ServeRequest(
      ContentId promptHash,
      long promptTokens,
      long maxTokens,
      Fidelity fidelityFloor,
      long jouleCeilingUj,
      Optional<DecisionShape> decision) {
    this(
        promptHash,
        promptTokens,
        maxTokens,
        fidelityFloor,
        jouleCeilingUj,
        decision,
        Optional.empty());
  }

  /**
   * This request restricted to the backends named {@code model} or serving the recipe {@code
   * model}; a different request, with a different id.
   *
   * @param model a backend name or recipe, as {@code /v1/models} lists them
   * @return the restricted request
   * @throws IllegalArgumentException if {@code model} is empty, longer than {@value
   *     #MAX_MODEL_NAME} characters or holds a control character
   */
  public ServeRequest withModel(String model) {
    return of(promptHash, promptTokens, bounds(), decision, Optional.of(model));
  }

  /**
   * A generation request for a prompt known by its content id and token count.
   *
   * @param promptHash content id of the prompt bytes
   * @param promptTokens the prompt's token count (u32)
   * @param bounds the serve's token ceiling, fidelity floor and joule ceiling (§3.1)
   * @return the request
   * @throws IllegalArgumentException if {@code promptTokens} is negative or past u32
   */
  public static ServeRequest generation(
      ContentId promptHash, long promptTokens, ServeBounds bounds) {
    return of(promptHash, promptTokens, bounds, Optional.empty(), Optional.empty());
  }

  /**
   * A generation request for prompt text, bounded by {@code bounds}: {@code prompt_hash} addresses
   * its bytes and {@code prompt_tokens} is their count (the byte-level figure, the same whichever
   * engine serves). The form the examples use: the token ceiling, fidelity floor and joule ceiling
   * travel as one {@link ServeBounds}, as in every other factory here, rather than as two bare
   * {@code long}s beside each other that a call can swap without a compile error.
   *
   * @param prompt the prompt text; never enters the request, only its hash and length
   * @param bounds the serve's token ceiling, fidelity floor and joule ceiling (§3.1)
   * @return the request
   * @throws NullPointerException if an argument is null
   */
  public static ServeRequest generation(PromptText prompt, ServeBounds bounds) {
    return generation(prompt.hash(), prompt.length(), bounds);
  }

  /**
   * A generation request for prompt text: the same request as {@link #generation(PromptText,
   * ServeBounds)} with {@code new ServeBounds(maxTokens, fidelityFloor, jouleCeilingUj)}.
   *
   * @param prompt the prompt text; never enters the request, only its hash and length
   * @param maxTokens output token ceiling (u32)
   * @param fidelityFloor the least acceptable fidelity
   * @param jouleCeilingUj the hard energy budget in µJ (u64, non-negative)
   * @return the request
   * @throws IllegalArgumentException if a bound is negative or past its width
   */
  public static ServeRequest generation(
      PromptText prompt, long maxTokens, Fidelity fidelityFloor, long jouleCeilingUj) {
    return generation(prompt, new ServeBounds(maxTokens, fidelityFloor, jouleCeilingUj));
  }

  /**
   * A typed-decision request for a decision asked as prompt text: {@code prompt_hash} addresses
   * {@link DecisionPrompt#text()}, {@code prompt_tokens} is its byte length, the decision shape is
   * {@link DecisionPrompt#shape()}, and {@code max_tokens} is 0, since a decision emits none.
   *
   * @param prompt the decision's text and questions
   * @param fidelityFloor the least acceptable fidelity
   * @param jouleCeilingUj the hard energy budget in µJ (u64, non-negative)
   * @return the request
   * @throws IllegalArgumentException if the ceiling is negative, or the schema's tokens exceed the
   *     prompt's
   */
  public static ServeRequest decision(
      DecisionPrompt prompt, Fidelity fidelityFloor, long jouleCeilingUj) {
    PromptText text = prompt.text();
    return decision(
        text.hash(),
        text.length(),
        new ServeBounds(0, fidelityFloor, jouleCeilingUj),
        prompt.shape());
  }

  /**
   * A typed-decision request for a prompt known by its content id and token count.
   *
   * @param promptHash content id of the prompt bytes
   * @param promptTokens the prompt's token count (u32), the schema's included
   * @param bounds the serve's bounds; a decision's {@code max_tokens} is usually 0
   * @param decision the decision's shape
   * @return the request
   * @throws IllegalArgumentException if {@code promptTokens} is negative or past u32, or below the
   *     decision's {@code schema_tokens}
   */
  public static ServeRequest decision(
      ContentId promptHash, long promptTokens, ServeBounds bounds, DecisionShape decision) {
    return of(promptHash, promptTokens, bounds, Optional.of(decision), Optional.empty());
  }

  /** The request of these parts, its three bounds taken as the one group they are. */
  private static ServeRequest of(
      ContentId promptHash,
      long promptTokens,
      ServeBounds bounds,
      Optional<DecisionShape> decision,
      Optional<String> model) {
    return new ServeRequest(
        promptHash,
        promptTokens,
        bounds.maxTokens(),
        bounds.fidelityFloor(),
        bounds.jouleCeilingUj(),
        decision,
        model);
  }

  /** This request's bounds (§3.1): already valid, since the request checked the same rules. */
  private ServeBounds bounds() {
    return new ServeBounds(maxTokens, fidelityFloor, jouleCeilingUj);
  }

  /**
   * Whether this request asks for a typed decision rather than generated text.
   *
   * @return whether {@link #decision()} is present
   */
  public boolean isDecision() {
    return decision.isPresent();
  }

  /** Returns the canonical form described above, in canonical CBOR. */
  @Override
  public byte[] encode() {
    return RequestCbor.encode(this).encode();
  }

  /**
   * The request id: the content id of the canonical form, which a grant authorises and a receipt
   * names.
   *
   * @return the {@code request_id}
   */
  public ContentId id() {
    return ContentId.of(this);
  }
}
