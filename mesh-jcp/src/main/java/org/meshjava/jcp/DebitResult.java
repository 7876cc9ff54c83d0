package org.meshjava.jcp;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.DenialLabel;

/**
 * The outcome of debiting a serve's metered joules against its chain (§2 phase 3). The debit always
 * happens, since the work ran; {@code breach} says whether it broke the grant, and is what a
 * receipt records as {@code grant_breach} (§6.1).
 *
 * @param grantId the leaf debited
 * @param debitedUj the µJ debited on every link
 * @param breach {@link DenialLabel#CAVEAT_UNSATISFIED} when the debit exceeded a {@link MaxCostUj},
 *     else {@link DenialLabel#BUDGET_EXHAUSTED} when it took a link over its budget, else empty
 * @param remainingUj what the chain has left afterwards (least over its links, never below 0)
 * @param chainExpiry the earliest expiry among the chain's links ({@link Instant#MAX} when the
 *     ledger was told of none): from then on the chain cannot be presented, so what {@code
 *     remainingUj} says about it no longer matters, and whoever keeps it per grant (a metrics
 *     binding) may forget it then, as the spend ledger does
 */
public record DebitResult(
    GrantId grantId,
    long debitedUj,
    Optional<DenialLabel> breach,
    long remainingUj,
    Instant chainExpiry) {
  /** Validates the result. */
  public DebitResult {
    Objects.requireNonNull(grantId, "grantId");
    Objects.requireNonNull(breach, "breach");
    Objects.requireNonNull(chainExpiry, "chainExpiry");
    if (debitedUj < 0 || remainingUj < 0) {
      throw new IllegalArgumentException("debit figures are non-negative");
    }
  }
}
