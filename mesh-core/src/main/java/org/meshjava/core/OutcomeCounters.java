package org.meshjava.core;

/**
 * The six counters a backend reports about a serve (§5) and a receipt carries (§6.1), each a u32.
 * One type for both, so the receipt says exactly what the engine reported.
 *
 * @param tokensIn prompt tokens consumed
 * @param tokensOut tokens emitted
 * @param tokensAccepted tokens accepted; the denominator of the wedge metric (§6.2)
 * @param cacheHitTokens output tokens served from a cache
 * @param specProposed tokens proposed by a speculative draft
 * @param specAccepted proposed tokens the target model accepted, never more than were proposed
 */
public record OutcomeCounters(
    long tokensIn,
    long tokensOut,
    long tokensAccepted,
    long cacheHitTokens,
    long specProposed,
    long specAccepted) {

  /**
   * Validates the counters.
   *
   * @throws IllegalArgumentException if one is not a u32, or more draft tokens were accepted than
   *     proposed (§5)
   */
  public OutcomeCounters {
    Unsigned.u32("tokens_in", tokensIn);
    Unsigned.u32("tokens_out", tokensOut);
    Unsigned.u32("tokens_accepted", tokensAccepted);
    Unsigned.u32("cache_hit_tokens", cacheHitTokens);
    Unsigned.u32("spec_proposed", specProposed);
    Unsigned.u32("spec_accepted", specAccepted);
    if (specAccepted > specProposed) {
      throw new IllegalArgumentException(
          "spec_accepted (" + specAccepted + ") exceeds spec_proposed (" + specProposed + ")");
    }
  }

  /** A greedy generation's counters: every emitted token accepted, no cache, no speculation. */
  public static OutcomeCounters greedy(long tokensIn, long tokensOut) {
    return new OutcomeCounters(tokensIn, tokensOut, tokensOut, 0, 0, 0);
  }
}
