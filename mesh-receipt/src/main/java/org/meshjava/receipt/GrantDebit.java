package org.meshjava.receipt;

import java.util.Objects;
import java.util.Optional;
import org.meshjava.core.ContentId;
import org.meshjava.core.DenialLabel;

/**
 * The grant a served request was debited on (§2): the leaf grant's id and, when the debit broke the
 * grant, how. A breach without a grant cannot be expressed.
 *
 * <p>A debit breaks a grant in only two ways, so a breach is one of two denial labels, {@link
 * DenialLabel#CAVEAT_UNSATISFIED} (a {@code MaxCostUj} caveat exceeded) or {@link
 * DenialLabel#BUDGET_EXHAUSTED} (a link's budget overspent), the debit made anyway since the work
 * ran (§2, §6.1, SPEC.md "Grant denial labels"). A receipt naming any other label is inconsistent.
 *
 * @param grantId the leaf grant debited ({@code grant_id})
 * @param breach how the debit broke the grant ({@code grant_breach}), if it did
 */
public record GrantDebit(ContentId grantId, Optional<DenialLabel> breach) {
  /**
   * Checks both parts are present and the breach is one a debit can make.
   *
   * @throws IllegalArgumentException if {@code breach} is a label no debit breaks a grant with
   */
  public GrantDebit {
    Objects.requireNonNull(grantId, "grantId");
    Objects.requireNonNull(breach, "breach");
    breach.ifPresent(b -> breachFromWire(b.wire()));
  }

  /**
   * The debit's breach with this {@code grant_breach} wire string.
   *
   * @throws IllegalArgumentException if {@code wire} is not {@code caveat-unsatisfied} or {@code
   *     budget-exhausted}
   */
  static DenialLabel breachFromWire(String wire) {
    if (wire.equals(DenialLabel.CAVEAT_UNSATISFIED.wire())) {
      return DenialLabel.CAVEAT_UNSATISFIED;
    }
    if (wire.equals(DenialLabel.BUDGET_EXHAUSTED.wire())) {
      return DenialLabel.BUDGET_EXHAUSTED;
    }
    throw new IllegalArgumentException(
        "grant_breach '"
            + wire
            + "' is not a debit's breach (caveat-unsatisfied, budget-exhausted)");
  }
}
