package org.meshjava.core;

/**
 * A backend's modelled energy cost (§4, §3.6): microjoules per token and, optionally, per scored
 * option. A per-option cost of zero reproduces the token-only model exactly.
 *
 * @param ujPerToken µJ per token (non-negative)
 * @param ujPerOptionScored µJ per option scored in a typed decision (non-negative, default 0)
 */
public record CostProfile(long ujPerToken, long ujPerOptionScored) {

  /** Validates the profile. */
  public CostProfile {
    Unsigned.u64("uj_per_token", ujPerToken);
    Unsigned.u64("uj_per_option_scored", ujPerOptionScored);
  }

  /** A token-only profile. */
  public static CostProfile perToken(long ujPerToken) {
    return new CostProfile(ujPerToken, 0);
  }

  /** Returns a copy with a per-option cost. */
  public CostProfile withOptionCost(long ujPerOptionScored) {
    return new CostProfile(ujPerToken, ujPerOptionScored);
  }

  /**
   * The router's estimate for a request (§4): {@code uj_per_token × (prompt_tokens + max_tokens)}
   * for a generation, {@code uj_per_token × prompt_tokens + uj_per_option_scored × options_scored}
   * for a decision, which never emits tokens and so is never priced for them. Saturates at {@link
   * Long#MAX_VALUE} rather than overflowing.
   */
  public long estimate(ServeRequest request) {
    return estimate(request, request.promptTokens());
  }

  /**
   * The same estimate with the input priced at {@code payloadTokens}, the length of the payload the
   * routed engine will actually run, in place of the {@code prompt_tokens} the caller declared. A
   * steward uses it once the payload is made, because a declared count is only the caller's word
   * (SPEC.md 60.1).
   *
   * @throws IllegalArgumentException if {@code payloadTokens} is negative
   */
  public long estimate(ServeRequest request, long payloadTokens) {
    Unsigned.u64("payload tokens", payloadTokens);
    if (request.decision().isPresent()) {
      return Unsigned.saturatingAdd(
          saturatingMultiply(ujPerToken, payloadTokens),
          saturatingMultiply(ujPerOptionScored, request.decision().get().optionsScored()));
    }
    return saturatingMultiply(
        ujPerToken, Unsigned.saturatingAdd(payloadTokens, request.maxTokens()));
  }

  /**
   * The estimate for what was actually served: tokens in plus tokens out at the token rate, plus
   * the options scored at the option rate for a decision. This is what an estimator meter reports.
   */
  public long estimateServed(ServeOutcome outcome) {
    long tokens = saturatingMultiply(ujPerToken, outcome.tokensIn() + outcome.tokensOut());
    long options =
        outcome
            .decision()
            .map(d -> saturatingMultiply(ujPerOptionScored, d.optionsScored()))
            .orElse(0L);
    return Unsigned.saturatingAdd(tokens, options);
  }

  private static long saturatingMultiply(long a, long b) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    if (hi != 0 || lo < 0) {
      return Long.MAX_VALUE;
    }
    return lo;
  }
}
