package org.meshjava.core;

import java.util.Objects;
import java.util.Optional;

/**
 * What a backend reports about a serve (§5). Counters are u32. The backend never reports energy:
 * the steward meters around it.
 *
 * @param tokensIn prompt tokens consumed
 * @param tokensOut tokens emitted
 * @param tokensAccepted tokens accepted; the denominator of the wedge metric (§6.2)
 * @param cacheHitTokens output tokens served from a cache
 * @param specProposed tokens proposed by a speculative draft
 * @param specAccepted proposed tokens the target model accepted
 * @param deliveredFidelity the level the backend says it served (§3.2.1), if it reports one
 * @param decision what a typed decision answered (§3.6); absent for a generation
 */
public record ServeOutcome(
    long tokensIn,
    long tokensOut,
    long tokensAccepted,
    long cacheHitTokens,
    long specProposed,
    long specAccepted,
    Optional<Fidelity> deliveredFidelity,
    Optional<DecisionShape> decision) {

  /** Validates the counters. */
  public ServeOutcome {
    Unsigned.u32("tokens_in", tokensIn);
    Unsigned.u32("tokens_out", tokensOut);
    Unsigned.u32("tokens_accepted", tokensAccepted);
    Unsigned.u32("cache_hit_tokens", cacheHitTokens);
    Unsigned.u32("spec_proposed", specProposed);
    Unsigned.u32("spec_accepted", specAccepted);
    Objects.requireNonNull(deliveredFidelity, "deliveredFidelity");
    Objects.requireNonNull(decision, "decision");
    if (specAccepted > specProposed) {
      throw new IllegalArgumentException(
          "spec_accepted (" + specAccepted + ") exceeds spec_proposed (" + specProposed + ")");
    }
  }

  /** A greedy generation: every emitted token accepted, no cache, no speculation. */
  public static ServeOutcome greedy(long tokensIn, long tokensOut) {
    return new ServeOutcome(
        tokensIn, tokensOut, tokensOut, 0, 0, 0, Optional.empty(), Optional.empty());
  }

  /** Returns a copy reporting {@code delivered} as the delivered fidelity. */
  public ServeOutcome withDeliveredFidelity(Fidelity delivered) {
    return new ServeOutcome(
        tokensIn,
        tokensOut,
        tokensAccepted,
        cacheHitTokens,
        specProposed,
        specAccepted,
        Optional.of(delivered),
        decision);
  }
}
