package org.meshjava.core;

import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.cbor.CborMap;

/**
 * A request to serve (§3.1). Content-addressed: {@link #id()} is the {@code request_id} a grant
 * authorises and a receipt names. It carries the prompt's content id, never the prompt.
 *
 * <p>Canonical form: a map with text keys {@code prompt_hash} (hex text), {@code prompt_tokens},
 * {@code max_tokens}, {@code fidelity_floor} (level 0–4), {@code joule_ceiling_uj} (unsigned
 * integers), and {@code decision} only when the request asks for a typed decision — so a
 * generation's id is what it was before decisions existed. See SPEC.md §Request.
 *
 * @param promptHash content id of the prompt bytes
 * @param promptTokens declared input token count (u32)
 * @param maxTokens output token ceiling (u32)
 * @param fidelityFloor the least acceptable fidelity
 * @param jouleCeilingUj the hard energy budget in µJ (u64, non-negative)
 * @param decision present when a typed decision is asked for
 */
public record ServeRequest(
    ContentId promptHash,
    long promptTokens,
    long maxTokens,
    Fidelity fidelityFloor,
    long jouleCeilingUj,
    Optional<DecisionShape> decision)
    implements CanonicalForm {

  /** Validates the request; both bounds of the §3.1 contract are required. */
  public ServeRequest {
    Objects.requireNonNull(promptHash, "prompt_hash");
    Objects.requireNonNull(fidelityFloor, "fidelity_floor is required (§3.1)");
    Objects.requireNonNull(decision, "decision");
    Unsigned.u32("prompt_tokens", promptTokens);
    Unsigned.u32("max_tokens", maxTokens);
    Unsigned.u64("joule_ceiling_uj", jouleCeilingUj);
    decision.ifPresent(
        d -> {
          if (d.schemaTokens() > promptTokens) {
            throw new IllegalArgumentException(
                "schema_tokens (" + d.schemaTokens() + ") exceeds prompt_tokens ("
                    + promptTokens + ")");
          }
        });
  }

  /** A generation request. */
  public static ServeRequest generation(
      ContentId promptHash,
      long promptTokens,
      long maxTokens,
      Fidelity fidelityFloor,
      long jouleCeilingUj) {
    return new ServeRequest(
        promptHash, promptTokens, maxTokens, fidelityFloor, jouleCeilingUj, Optional.empty());
  }

  /** A typed-decision request. */
  public static ServeRequest decision(
      ContentId promptHash,
      long promptTokens,
      long maxTokens,
      Fidelity fidelityFloor,
      long jouleCeilingUj,
      DecisionShape decision) {
    return new ServeRequest(
        promptHash, promptTokens, maxTokens, fidelityFloor, jouleCeilingUj, Optional.of(decision));
  }

  /** Whether this request asks for a typed decision rather than generated text. */
  public boolean isDecision() {
    return decision.isPresent();
  }

  @Override
  public CborMap toCbor() {
    CborMap.Builder b =
        CborMap.builder()
            .put("prompt_hash", promptHash.toCborText())
            .put("prompt_tokens", promptTokens)
            .put("max_tokens", maxTokens)
            .put("fidelity_floor", fidelityFloor.level())
            .put("joule_ceiling_uj", jouleCeilingUj);
    decision.ifPresent(d -> b.put("decision", d.toCbor()));
    return b.build();
  }

  /** The request id: the content id of the canonical form. */
  public ContentId id() {
    return ContentId.of(this);
  }
}
