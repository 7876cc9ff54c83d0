package org.meshjava.core;

import java.util.Objects;

/**
 * What a caller bounds a serve by (§3.1): at most {@code maxTokens} out, at least {@code
 * fidelityFloor}, at most {@code jouleCeilingUj} spent. A parameter record for {@link
 * ServeRequest}'s factories, so that a call names its figures in one group instead of passing three
 * positional numbers beside the prompt's own count.
 *
 * @param maxTokens output token ceiling (u32); a decision emits none and asks for 0
 * @param fidelityFloor the least acceptable fidelity
 * @param jouleCeilingUj the hard energy budget in µJ (u64, non-negative)
 */
public record ServeBounds(long maxTokens, Fidelity fidelityFloor, long jouleCeilingUj) {

  /** Validates the bounds as the request itself would. */
  public ServeBounds {
    Unsigned.u32("max_tokens", maxTokens);
    Objects.requireNonNull(fidelityFloor, "fidelity_floor is required (§3.1)");
    Unsigned.u64("joule_ceiling_uj", jouleCeilingUj);
  }
}
