package org.meshjava.core;

import java.util.Optional;

/**
 * The largest request a backend takes: its prompt and output token counts and its joule ceiling. A
 * request over any limit is inadmissible on that backend, so it is refused while routing (§4),
 * before any grant is decided or any work is done, rather than failing inside the engine.
 *
 * <p>Limits come from two places. An engine states what it can serve at all ({@link
 * ServingEngine#limits()}: a model's context window, what its output buffer can hold). An operator
 * may cap a backend further (how long a reply it will generate, how large a ceiling it lets a grant
 * reserve on it); the steward applies the {@link #tighter} of the two.
 *
 * <p>The counts are u32, like the request's (§3.1); {@link #NONE} allows the whole range. A
 * decision emits no tokens (§3.6), so the output limit does not apply to one.
 *
 * @param maxPromptTokens the most {@code prompt_tokens} taken (u32)
 * @param maxOutputTokens the most {@code max_tokens} taken for a generation (u32)
 * @param maxJouleCeilingUj the largest {@code joule_ceiling_uj} taken (non-negative)
 */
public record ServeLimits(long maxPromptTokens, long maxOutputTokens, long maxJouleCeilingUj) {
  /** No limit: every u32 count and every ceiling. */
  public static final ServeLimits NONE =
      new ServeLimits(Unsigned.U32_MAX, Unsigned.U32_MAX, Long.MAX_VALUE);

  /** Validates the limits. */
  public ServeLimits {
    Unsigned.u32("max_prompt_tokens", maxPromptTokens);
    Unsigned.u32("max_output_tokens", maxOutputTokens);
    Unsigned.u64("max_joule_ceiling_uj", maxJouleCeilingUj);
  }

  /** A copy taking at most {@code v} prompt tokens. */
  public ServeLimits withMaxPromptTokens(long v) {
    return new ServeLimits(v, maxOutputTokens, maxJouleCeilingUj);
  }

  /** A copy taking at most {@code v} output tokens. */
  public ServeLimits withMaxOutputTokens(long v) {
    return new ServeLimits(maxPromptTokens, v, maxJouleCeilingUj);
  }

  /** A copy taking a joule ceiling of at most {@code v} µJ. */
  public ServeLimits withMaxJouleCeilingUj(long v) {
    return new ServeLimits(maxPromptTokens, maxOutputTokens, v);
  }

  /** The smaller of each limit: what a backend takes under both. */
  public ServeLimits tighter(ServeLimits other) {
    return new ServeLimits(
        Math.min(maxPromptTokens, other.maxPromptTokens),
        Math.min(maxOutputTokens, other.maxOutputTokens),
        Math.min(maxJouleCeilingUj, other.maxJouleCeilingUj));
  }

  /** Why {@code request} is over these limits, naming the field and both figures; empty if not. */
  public Optional<String> refusal(ServeRequest request) {
    if (request.promptTokens() > maxPromptTokens) {
      return Optional.of("prompt_tokens " + request.promptTokens() + " > limit " + maxPromptTokens);
    }
    if (!request.isDecision() && request.maxTokens() > maxOutputTokens) {
      return Optional.of("max_tokens " + request.maxTokens() + " > limit " + maxOutputTokens);
    }
    if (request.jouleCeilingUj() > maxJouleCeilingUj) {
      return Optional.of(
          "joule_ceiling_uj " + request.jouleCeilingUj() + " > limit " + maxJouleCeilingUj);
    }
    return Optional.empty();
  }
}
